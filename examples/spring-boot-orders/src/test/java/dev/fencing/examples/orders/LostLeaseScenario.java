package dev.fencing.examples.orders;

import dev.fencing.testing.PauseInjector;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The timeline of a lost lease and a row its successor has not written yet, on the example's own
 * services: worker A cancels order 42 and stalls in the gateway past its lock's TTL; worker B
 * takes the lock with a newer fence, reads the order (about to pay it) and stalls while charging,
 * before writing; A wakes and writes. Orchestrated with pause points: each stall is a
 * {@link PauseInjector} point, held until the test releases it.
 */
final class LostLeaseScenario implements AutoCloseable {

    /** Where A stalls (in {@code releaseHold}) and where B stalls (in {@code charge}). */
    static final String A_STALLS = "release-hold";
    static final String B_STALLS = "charge";

    private final PaymentService payments;
    private final JdbcTemplate database;
    private final PauseInjector pauses;
    private final ExecutorService workers = Executors.newFixedThreadPool(2);
    private Future<Boolean> cancelA;
    private Future<PaymentService.Outcome> payB;

    LostLeaseScenario(PaymentService payments, JdbcTemplate database, PauseInjector pauses) {
        this.payments = payments;
        this.database = database;
        this.pauses = pauses;
    }

    /** The gateway where A and B stall: each call waits at its pause point until the test releases it. */
    static PaymentGateway stallingGateway(PauseInjector pauses) {
        return new PaymentGateway() {
            @Override
            public void charge(long orderId, long amount) {
                pauses.pauseAt(B_STALLS);
            }

            @Override
            public void releaseHold(long orderId) {
                pauses.pauseAt(A_STALLS);
            }
        };
    }

    /** Up to the moment A wakes: A holds a lost lease, B holds the lock and has read, not written, the order. */
    void untilTheStaleHolderWakes() throws Exception {
        payments.place(42);
        pauses.arm(A_STALLS);
        cancelA = workers.submit(() -> payments.cancel(42));
        pauses.awaitPaused(A_STALLS, Duration.ofSeconds(10));
        pauses.arm(B_STALLS);
        // B waits for A's lease to expire (its TTL), takes the lock with a newer fence, reads the order and stalls
        payB = workers.submit(() -> payments.pay(42, 250));
        pauses.awaitPaused(B_STALLS, Duration.ofSeconds(20));
    }

    /** A wakes and writes; its outcome (or its failure, thrown as the {@code ExecutionException}). */
    Future<Boolean> staleHolderWrites() {
        pauses.release(A_STALLS);
        return cancelA;
    }

    /** B goes on: charges (done) and pays the order. */
    Future<PaymentService.Outcome> successorWrites() {
        pauses.release(B_STALLS);
        return payB;
    }

    /** The order as the database holds it, read through a connection of the test's own. */
    Map<String, Object> order() {
        return database.queryForMap("SELECT status, paid_amount, last_fence FROM orders WHERE id = 42");
    }

    @Override
    public void close() {
        pauses.close();
        workers.shutdownNow();
    }
}
