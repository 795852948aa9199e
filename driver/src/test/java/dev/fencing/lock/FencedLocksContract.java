package dev.fencing.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Fence;
import dev.fencing.lock.StoreLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every fenced lock store must do, run against a real store by each subclass: fences
 * unique and growing, mutual exclusion, expiry, compare-and-delete release and
 * compare-and-extend renewal, the fenced helpers, and a paused holder that loses to its
 * successor.
 */
abstract class FencedLocksContract {

    /** The two public lock classes behind one face, for the shared tests. */
    interface Locks extends AutoCloseable {
        Optional<Lease> tryAcquire(String resource, Duration ttl);

        Lease acquire(String resource, Duration ttl, Duration maxWait);

        @Override
        void close();
    }

    private final List<Locks> opened = new ArrayList<>();

    /** A new lock client on the store under test; {@code watchdogExecutor} null for no renewal. */
    protected abstract Locks newLocks(ScheduledExecutorService watchdogExecutor);

    /** Makes the lock on {@code resource} expire now at the store, as if its TTL had passed. */
    protected abstract void expireAtStore(String resource) throws Exception;

    /** A fragment every message about this store contains (its address or table). */
    protected abstract String storeName();

    /** A label for printed measurements. */
    protected abstract String label();

    protected final Locks open(ScheduledExecutorService watchdogExecutor) {
        Locks locks = newLocks(watchdogExecutor);
        opened.add(locks);
        return locks;
    }

    protected static String newResource() {
        return "order:" + UUID.randomUUID();
    }

    @AfterEach
    void closeLocks() {
        opened.forEach(Locks::close);
        opened.clear();
    }

    @Test
    void fencesAreUniqueAndGrowAndOnlyOneHolderAtATime() throws Exception {
        // Two clients, as two processes would be; each thread uses one of them.
        Locks first = open(null);
        Locks second = open(null);
        String resource = newResource();
        int threads = 8;
        int rounds = 50;
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong lastFence = new AtomicLong();
        AtomicInteger notGrowing = new AtomicInteger();
        List<Long> fences = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Locks locks = t % 2 == 0 ? first : second;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        try (Lease lease = locks.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(30))) {
                            if (holders.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            // In acquisition order, as the holders observe it.
                            if (lease.fence() <= lastFence.getAndSet(lease.fence())) {
                                notGrowing.incrementAndGet();
                            }
                            fences.add(lease.fence());
                            holders.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : done) {
                future.get(50, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(overlaps).as("acquisitions that overlapped another holder").hasValue(0);
        assertThat(notGrowing).as("fences not larger than the one before").hasValue(0);
        assertThat(fences).hasSize(threads * rounds);
        assertThat(new HashSet<>(fences)).hasSize(threads * rounds);
        assertThat(fences).isSorted();
    }

    @Test
    void aHeldLockIsNotGivenAgainAndEachTenureGetsALargerFence() {
        Locks locks = open(null);
        String resource = newResource();
        Lease first = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow();
        assertThat(first.resource()).isEqualTo(resource);
        assertThat(UUID.fromString(first.ownershipToken())).isNotNull();
        assertThat(first.fence()).isPositive();
        assertThat(first.isHeld()).isTrue();
        assertThat(locks.tryAcquire(resource, Duration.ofSeconds(10))).isEmpty();

        first.close();
        assertThat(first.isHeld()).isFalse();
        first.close(); // harmless

        try (Lease second = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow()) {
            assertThat(second.fence()).isGreaterThan(first.fence());
            assertThat(second.ownershipToken()).isNotEqualTo(first.ownershipToken());
            // A lease's fence is its own, not the latest handed to anyone.
            assertThat(first.fence()).isLessThan(second.fence());
        }
        // Another resource has fences of its own: taking it does not count towards this one.
        try (Lease other = locks.tryAcquire(newResource(), Duration.ofSeconds(10)).orElseThrow()) {
            assertThat(other.fence()).isPositive();
        }
        try (Lease third = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow()) {
            assertThat(third.fence()).isGreaterThan(first.fence());
        }
    }

    @Test
    void acquireTimesOutWithAMessageNamingTheResourceAndTheStore() {
        Locks locks = open(null);
        String resource = newResource();
        try (Lease held = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow()) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> locks.acquire(resource, Duration.ofSeconds(1), Duration.ofMillis(300)))
                    .isInstanceOfSatisfying(LockAcquisitionException.class, e -> {
                        assertThat(e.reason()).isEqualTo(LockAcquisitionException.Reason.TIMED_OUT);
                        assertThat(e.resource()).isEqualTo(resource);
                    })
                    .hasMessageContaining(resource)
                    .hasMessageContaining(storeName());
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(290), Duration.ofSeconds(3));
            assertThat(held.isHeld()).isTrue();
        }
    }

    @Test
    void aWaitingAcquireGetsTheLockWhenItExpires() {
        Locks locks = open(null);
        String resource = newResource();
        Lease expiring = locks.tryAcquire(resource, Duration.ofMillis(200)).orElseThrow();
        try (Lease successor = locks.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(5))) {
            assertThat(successor.fence()).isGreaterThan(expiring.fence());
            // The store let the successor in after the TTL, so it has passed here as well.
            assertThat(expiring.isHeld()).isFalse();
            assertThat(StoreLocks.renewNow(expiring, Duration.ofSeconds(5))).isFalse();
            expiring.close();
            assertThat(successor.isHeld()).isTrue();
            assertThat(locks.tryAcquire(resource, Duration.ofSeconds(10))).as("the successor still holds it").isEmpty();
        }
        assertThat(locks.tryAcquire(resource, Duration.ofSeconds(10))).isPresent();
    }

    @Test
    void aLeaseWhoseLockExpiredAtTheStoreCannotExtendOrReleaseItsSuccessorsLock() throws Exception {
        Locks locks = open(null);
        String resource = newResource();
        Lease stale = locks.tryAcquire(resource, Duration.ofSeconds(30)).orElseThrow();
        expireAtStore(resource);
        Lease successor = locks.tryAcquire(resource, Duration.ofSeconds(30)).orElseThrow();
        assertThat(successor.fence()).isGreaterThan(stale.fence());

        // This process still believes (its own clock says the TTL runs); the store says no.
        assertThat(stale.isHeld()).isTrue();
        assertThat(StoreLocks.renewNow(stale, Duration.ofSeconds(5))).as("compare-and-extend by the stale lease").isFalse();
        assertThat(stale.isHeld()).isFalse();
        stale.close();
        assertThat(locks.tryAcquire(resource, Duration.ofSeconds(10))).as("compare-and-delete left it").isEmpty();

        assertThat(StoreLocks.renewNow(successor, Duration.ofSeconds(5))).isTrue();
        successor.close();
        assertThat(locks.tryAcquire(resource, Duration.ofSeconds(10))).isPresent();
    }

    @Test
    void theWatchdogKeepsALeaseAndNoticesWhenItIsLost() throws Exception {
        ScheduledThreadPoolExecutor renewals = new ScheduledThreadPoolExecutor(1);
        try {
            Locks locks = open(renewals);
            String resource = newResource();
            Lease lease = locks.tryAcquire(resource, Duration.ofMillis(3000)).orElseThrow();
            // Past its TTL it is still held, by renewals every second.
            Thread.sleep(4000);
            assertThat(lease.isHeld()).isTrue();
            assertThat(locks.tryAcquire(resource, Duration.ofSeconds(10))).isEmpty();

            expireAtStore(resource);
            Lease successor = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow();
            long taken = System.nanoTime();
            // The next renewal (within a second) finds the lock in other hands, before the
            // lease's own TTL (at least 2 s away) would have told.
            RedisServerProcess.awaitUntil("the watchdog notices the loss", Duration.ofSeconds(4), () -> !lease.isHeld());
            assertThat(Duration.ofNanos(System.nanoTime() - taken)).isLessThan(Duration.ofMillis(2000));
            assertThat(StoreLocks.isRenewing(lease)).isFalse();
            lease.close();
            assertThat(successor.isHeld()).isTrue();
            assertThat(locks.tryAcquire(resource, Duration.ofSeconds(10))).isEmpty();
            successor.close();
        } finally {
            renewals.shutdownNow();
        }
    }

    @Test
    void aPausedHolderLosesItsLockToALargerFenceAndCannotTakeItBack() throws Exception {
        // The holder's process "pauses": its thread stops at a latch, and so does its watchdog
        // (a blocked renewal thread), the way a GC pause or a frozen VM stops both.
        ScheduledThreadPoolExecutor holderWatchdog = new ScheduledThreadPoolExecutor(1);
        ExecutorService holderThread = Executors.newSingleThreadExecutor();
        try {
            Locks holderProcess = open(holderWatchdog);
            Locks otherProcess = open(null);
            String resource = newResource();
            CountDownLatch acquired = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            CountDownLatch watchdogFrozen = new CountDownLatch(1);
            AtomicLong heldFence = new AtomicLong();
            Future<String> holder = holderThread.submit(() -> {
                try (Lease lease = holderProcess.acquire(resource, Duration.ofMillis(300), Duration.ofSeconds(5))) {
                    heldFence.set(lease.fence());
                    acquired.countDown();
                    resume.await(); // the pause
                    assertThat(lease.isHeld()).isFalse();
                    assertThat(StoreLocks.renewNow(lease, Duration.ofSeconds(5))).isFalse();
                    try {
                        lease.runFenced(() -> {
                            throw new AssertionError("stale work must not start");
                        });
                        return "ran";
                    } catch (IllegalStateException expected) {
                        return expected.getMessage();
                    }
                } // close(): must not release the successor's lock
            });
            assertThat(acquired.await(5, TimeUnit.SECONDS)).isTrue();
            holderWatchdog.execute(() -> {
                watchdogFrozen.countDown();
                try {
                    resume.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(watchdogFrozen.await(5, TimeUnit.SECONDS)).isTrue();

            Lease successor = otherProcess.acquire(resource, Duration.ofSeconds(10), Duration.ofSeconds(5));
            assertThat(successor.fence()).isGreaterThan(heldFence.get());

            resume.countDown();
            assertThat(holder.get(5, TimeUnit.SECONDS)).contains("no longer held").contains(resource);
            assertThat(successor.isHeld()).isTrue();
            assertThat(otherProcess.tryAcquire(resource, Duration.ofSeconds(10))).as("the successor keeps it").isEmpty();
            successor.close();
            assertThat(otherProcess.tryAcquire(resource, Duration.ofSeconds(10))).isPresent();
        } finally {
            holderThread.shutdownNow();
            holderWatchdog.shutdownNow();
        }
    }

    @Test
    void fencedHelpersEnterTheLeasesFenceUnderTheResourceNameAndRestoreThePreviousOne() throws Exception {
        Locks locks = open(null);
        String resource = newResource();
        Lease lease = locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow();
        try (Fence.Scope outer = Fence.enter(1_000_000L)) {
            assertThat(outer.token()).isEqualTo(1_000_000L);
            lease.runFenced(() -> {
                assertThat(Fence.current()).hasValue(lease.fence());
                assertThat(Fence.currentLock()).contains(resource);
            });
            assertThat(Fence.current()).hasValue(1_000_000L);
            assertThat(lease.callFenced(() -> Fence.current().getAsLong())).isEqualTo(lease.fence());
            assertThatThrownBy(() -> lease.callFenced(() -> {
                throw new java.io.IOException("boom");
            })).isInstanceOf(java.io.IOException.class);
            assertThat(Fence.current()).hasValue(1_000_000L);
            try (Fence.Scope scope = lease.enterFence()) {
                assertThat(scope.token()).isEqualTo(lease.fence());
            }
            assertThat(Fence.current()).hasValue(1_000_000L);
        }
        assertThat(Fence.current()).isEmpty();
        lease.close();
        assertThatThrownBy(() -> lease.runFenced(() -> { }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(resource);
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsSent() {
        Locks locks = open(null);
        assertThatThrownBy(() -> locks.tryAcquire(" ", Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.tryAcquire("r", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.acquire("r", Duration.ofSeconds(1), Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closedLocksRefuseToAcquire() {
        Locks locks = newLocks(null);
        locks.close();
        assertThatThrownBy(() -> locks.tryAcquire(newResource(), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void measureAcquireAndReleaseRoundTrips() {
        Locks locks = open(null);
        String resource = newResource();
        for (int i = 0; i < 300; i++) { // warm-up
            locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow().close();
        }
        int cycles = 2000;
        long started = System.nanoTime();
        for (int i = 0; i < cycles; i++) {
            locks.tryAcquire(resource, Duration.ofSeconds(10)).orElseThrow().close();
        }
        double micros = (System.nanoTime() - started) / 1000.0 / cycles;
        System.out.printf("lock round trip [%s]: tryAcquire + close = %.1f us per cycle (mean of %d)%n",
                label(), micros, cycles);
    }
}
