package dev.fencing.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The database of a {@link JdbcFencedLocks} goes away (a crash, a restart) while an acquire
 * waits: the acquire tries again until its {@code maxWait}, and the lease comes once the
 * database is back; {@code tryAcquire} fails at once. On a PostgreSQL server of the test's own.
 */
class JdbcOutageTest {

    @Test
    void aDatabaseRestartWhileAnAcquireWaitsEndsInALeaseOnceItIsBack() throws Exception {
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try (PrivatePostgres server = PrivatePostgres.start();
                RetriesSeen retries = new RetriesSeen()) {
            PGSimpleDataSource database = new PGSimpleDataSource();
            database.setURL(server.jdbcUrl());
            database.setConnectTimeout(2);
            try (JdbcFencedLocks locks = JdbcFencedLocks.builder(database).idleConnections(0).build()) {
                locks.createTable();
                long before = locks.tryAcquire("order:11", Duration.ofMillis(1)).orElseThrow().fence();
                server.crash();

                assertThatThrownBy(() -> locks.tryAcquire("order:11", Duration.ofSeconds(5)))
                        .isInstanceOfSatisfying(LockAcquisitionException.class,
                                e -> assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.STORE_FAILED));
                assertThat(retries.count).as("tryAcquire makes one attempt").hasValue(0);

                Future<Lease> waiter = waiterThread.submit(
                        () -> locks.acquire("order:11", Duration.ofSeconds(30), Duration.ofSeconds(60)));
                assertThat(retries.firstFailure.await(30, TimeUnit.SECONDS)).as("the acquire met the outage").isTrue();
                assertThat(waiter).isNotDone();

                server.startServer();
                try (Lease lease = waiter.get(60, TimeUnit.SECONDS)) {
                    assertThat(lease.fence()).isGreaterThan(before);
                    assertThat(lease.isHeld()).isTrue();
                }
                System.out.println("JDBC acquire waited through a database restart, " + retries.count.get()
                        + " attempts failed meanwhile");
            }
        } finally {
            waiterThread.shutdownNow();
        }
    }
}
