package dev.fencing.testing;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PauseInjectorTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final PauseInjector pauses = new PauseInjector();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<String> steps = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() throws InterruptedException {
        pauses.close();
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(5, TimeUnit.SECONDS));
    }

    /** The code under test: a holder that reads, reaches the pause point, then writes. */
    private void holder(String name) {
        steps.add(name + " read");
        pauses.pauseAt("before-write");
        steps.add(name + " wrote");
    }

    @Test
    void anUnarmedPointIsANoOp() {
        holder("A");
        assertEquals(List.of("A read", "A wrote"), steps);
        assertFalse(pauses.isPaused("before-write"));
    }

    @Test
    void anArmedPointHoldsTheThreadUntilReleased() throws Exception {
        pauses.arm("before-write");
        Future<?> a = threads.submit(() -> holder("A"));
        Thread caught = pauses.awaitPaused("before-write", WAIT);

        assertTrue(pauses.isPaused("before-write"));
        assertEquals(Thread.State.WAITING, awaitState(caught, Thread.State.WAITING));
        assertEquals(List.of("A read"), steps);

        steps.add("B wrote");
        pauses.release("before-write");
        a.get(5, TimeUnit.SECONDS);
        assertEquals(List.of("A read", "B wrote", "A wrote"), steps);
        assertFalse(pauses.isPaused("before-write"));
    }

    @Test
    void onlyTheFirstThreadToArriveIsCaught() throws Exception {
        pauses.arm("before-write");
        Future<?> a = threads.submit(() -> holder("A"));
        pauses.awaitPaused("before-write", WAIT);

        threads.submit(() -> holder("B")).get(5, TimeUnit.SECONDS);
        assertEquals(List.of("A read", "B read", "B wrote"), steps);

        pauses.release("before-write");
        a.get(5, TimeUnit.SECONDS);
        assertEquals("A wrote", steps.get(3));
    }

    @Test
    void aPointCanBeArmedAgainAfterRelease() throws Exception {
        for (String name : List.of("A", "B")) {
            pauses.arm("before-write");
            Future<?> holder = threads.submit(() -> holder(name));
            pauses.awaitPaused("before-write", WAIT);
            pauses.release("before-write");
            holder.get(5, TimeUnit.SECONDS);
        }
        assertEquals(List.of("A read", "A wrote", "B read", "B wrote"), steps);
    }

    @Test
    void awaitPausedFailsWhenNoThreadArrives() {
        pauses.arm("before-write");
        AssertionFailedError error = assertThrows(AssertionFailedError.class,
                () -> pauses.awaitPaused("before-write", Duration.ofMillis(20)));
        assertEquals("no thread reached pause point 'before-write' within PT0.02S", error.getMessage());
    }

    @Test
    void misuseIsReportedNotIgnored() {
        assertThrows(IllegalStateException.class, () -> pauses.awaitPaused("nowhere", WAIT));
        assertThrows(IllegalStateException.class, () -> pauses.release("nowhere"));
        pauses.arm("twice");
        IllegalStateException error = assertThrows(IllegalStateException.class, () -> pauses.arm("twice"));
        assertTrue(error.getMessage().contains("already armed"));
    }

    @Test
    void closeReleasesEveryCaughtThread() throws Exception {
        pauses.arm("one");
        pauses.arm("two");
        Future<?> first = threads.submit(() -> pauses.pauseAt("one"));
        Future<?> second = threads.submit(() -> pauses.pauseAt("two"));
        pauses.awaitPaused("one", WAIT);
        pauses.awaitPaused("two", WAIT);
        pauses.close();
        first.get(5, TimeUnit.SECONDS);
        second.get(5, TimeUnit.SECONDS);
        pauses.pauseAt("one"); // disarmed: passes
    }

    @Test
    void anInterruptEndsThePauseAndIsKept() throws Exception {
        pauses.arm("before-write");
        CountDownLatch done = new CountDownLatch(1);
        boolean[] interrupted = new boolean[1];
        Thread holder = new Thread(() -> {
            pauses.pauseAt("before-write");
            interrupted[0] = Thread.currentThread().isInterrupted();
            done.countDown();
        });
        holder.start();
        assertSame(holder, pauses.awaitPaused("before-write", WAIT));
        holder.interrupt();
        assertTrue(done.await(5, TimeUnit.SECONDS));
        assertTrue(interrupted[0]);
    }

    @Test
    void aHookPausesLikePauseAt() throws Exception {
        Runnable beforeWrite = pauses.hook("before-write");
        pauses.arm("before-write");
        Future<?> holder = threads.submit(beforeWrite);
        pauses.awaitPaused("before-write", WAIT);
        assertFalse(holder.isDone());
        pauses.release("before-write");
        holder.get(5, TimeUnit.SECONDS);
    }

    /** A caught thread may be between counting down and parking: wait (briefly) until it parks. */
    private static Thread.State awaitState(Thread thread, Thread.State wanted) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (thread.getState() != wanted && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return thread.getState();
    }
}
