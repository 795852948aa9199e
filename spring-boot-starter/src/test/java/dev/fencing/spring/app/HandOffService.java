package dev.fencing.spring.app;

import dev.fencing.Fence;
import dev.fencing.spring.FencedLock;
import dev.fencing.spring.FencingTaskDecorator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.stereotype.Service;

/** @FencedLock methods that hand their write to another thread, or reach a locked method without the proxy. */
@Service
public class HandOffService {

    private static final String PAY = "UPDATE orders SET status = 'paid' WHERE id = ?";

    private final JdbcTemplate jdbc;

    public HandOffService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The write on a new thread; its error is rethrown here. */
    @FencedLock(resource = "handoff:#{#orderId}")
    public void onANewThread(long orderId) throws InterruptedException {
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                jdbc.update(PAY, orderId);
            } catch (RuntimeException e) {
                failure.set(e);
            }
        }, "handoff-worker");
        worker.start();
        worker.join();
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    /** The write in a CompletableFuture on the common pool. */
    @FencedLock(resource = "handoff:#{#orderId}")
    public void inACompletableFuture(long orderId) {
        CompletableFuture.runAsync(() -> jdbc.update(PAY, orderId)).join();
    }

    /** The write on a pool whose tasks carry the submitter's fence; returns the fence of this method's lease. */
    @FencedLock(resource = "handoff:#{#orderId}")
    public long onAFencingExecutor(long orderId) throws Exception {
        ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutor();
        pool.setTaskDecorator(new FencingTaskDecorator());
        pool.setThreadNamePrefix("fenced-pool-");
        pool.initialize();
        try {
            Future<?> write = pool.submit(() -> jdbc.update(PAY, orderId));
            write.get();
            return Fence.current().orElseThrow();
        } finally {
            pool.shutdown();
        }
    }

    /** Calls a @FencedLock method of this class directly: the proxy, and so the lock, is skipped. */
    public void selfInvoking(long orderId) {
        locked(orderId);
    }

    @FencedLock(resource = "handoff:#{#orderId}")
    public void locked(long orderId) {
        jdbc.update(PAY, orderId);
    }
}
