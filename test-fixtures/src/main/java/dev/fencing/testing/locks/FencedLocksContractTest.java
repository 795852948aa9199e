package dev.fencing.testing.locks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.fencing.Fence;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.LockAcquisitionException;
import dev.fencing.lock.spi.StoreLocks;
import java.time.Duration;
import java.util.ArrayList;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * What every fenced lock store must do, run against a real store by a subclass per store
 * (Redis, JDBC, etcd, ZooKeeper, or a store of your own built on {@link StoreLocks}): fences
 * unique and growing under contention, mutual exclusion, expiry, compare-and-delete release
 * and compare-and-extend renewal, renewal that notices a lost lock, a paused holder that loses
 * to its successor, waiters woken by a release in another client, the fenced helpers.
 *
 * <pre>{@code
 * class MyStoreContractTest extends FencedLocksContractTest {
 *     protected FencedLocks newLocks(Options options) { ... }
 *     protected void expireAtStore(String resource) { ... }
 *     protected String storeName() { return "mystore at 127.0.0.1:1234"; }
 * }
 * }</pre>
 *
 * <p>Only the public lock API is used (and {@link StoreLocks#renewNow} for compare-and-extend),
 * so the subclass decides how its store is started and configured.
 */
public abstract class FencedLocksContractTest {

    /**
     * How a test wants its client configured.
     *
     * @param renewalSchedule renew leases (watchdog on) with their schedule on this executor, or
     *        null for leases that simply expire
     * @param pollInterval the longest a waiter waits between attempts when it hears of no
     *        release, or null for the store's default
     */
    public record Options(ScheduledExecutorService renewalSchedule, Duration pollInterval) {

        public static Options plain() {
            return new Options(null, null);
        }

        public boolean watchdog() {
            return renewalSchedule != null;
        }
    }

    private final List<FencedLocks> opened = new ArrayList<>();

    /** A new, independent client of the store under test (as another process would have). */
    protected abstract FencedLocks newLocks(Options options);

    /** Makes the current lock on {@code resource} end at the store now, as if its TTL had passed. */
    protected abstract void expireAtStore(String resource) throws Exception;

    /** A fragment that every message about this store contains (its address or table). */
    protected abstract String storeName();

    /** Whether a release in one client wakes a waiter in another at once (not by polling). */
    protected boolean wakesWaitersAcrossClients() {
        return true;
    }

    /** A TTL comfortably longer than any test step: the default 10 s. */
    protected Duration longTtl() {
        return Duration.ofSeconds(10);
    }

    /** A label for printed measurements. */
    protected String label() {
        return storeName();
    }

    protected final FencedLocks open(Options options) {
        FencedLocks locks = newLocks(options);
        opened.add(locks);
        return locks;
    }

    protected static String newResource() {
        return "order:" + UUID.randomUUID();
    }

    @AfterEach
    void closeOpenedLocks() {
        opened.forEach(FencedLocks::close);
        opened.clear();
    }

    @Test
    void fencesAreUniqueAndGrowAndOnlyOneHolderAtATime() throws Exception {
        FencedLocks first = open(Options.plain());
        FencedLocks second = open(Options.plain());
        String resource = newResource();
        int threads = 4;
        int rounds = 25;
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong lastFence = new AtomicLong();
        AtomicInteger notGrowing = new AtomicInteger();
        List<Long> fences = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                FencedLocks locks = t % 2 == 0 ? first : second;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        try (Lease lease = locks.acquire(resource, longTtl(), Duration.ofSeconds(60))) {
                            if (holders.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
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
                future.get(90, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, overlaps.get(), "acquisitions that overlapped another holder");
        assertEquals(0, notGrowing.get(), "fences not larger than the one before");
        assertEquals(threads * rounds, fences.size());
        assertEquals(threads * rounds, new HashSet<>(fences).size(), "a fence was issued twice");
    }

    @Test
    void aHeldLockIsNotGivenAgainAndEachTenureGetsALargerFence() {
        FencedLocks locks = open(Options.plain());
        FencedLocks other = open(Options.plain());
        String resource = newResource();
        Lease first = locks.tryAcquire(resource, longTtl()).orElseThrow();
        assertEquals(resource, first.resource());
        assertEquals(first.ownershipToken(), UUID.fromString(first.ownershipToken()).toString());
        assertTrue(first.fence() > 0);
        assertTrue(first.isHeld());
        assertTrue(locks.tryAcquire(resource, longTtl()).isEmpty(), "same client");
        assertTrue(other.tryAcquire(resource, longTtl()).isEmpty(), "another client");

        first.close();
        assertFalse(first.isHeld());
        first.close(); // harmless

        try (Lease second = other.tryAcquire(resource, longTtl()).orElseThrow()) {
            assertTrue(second.fence() > first.fence());
            assertNotEquals(first.ownershipToken(), second.ownershipToken());
            assertTrue(first.fence() < second.fence(), "a lease's fence is its own, not the latest handed out");
        }
        try (Lease unrelated = locks.tryAcquire(newResource(), longTtl()).orElseThrow()) {
            assertTrue(unrelated.fence() > 0);
        }
    }

    @Test
    void acquireTimesOutWithAMessageNamingTheResourceAndTheStore() {
        FencedLocks locks = open(Options.plain());
        String resource = newResource();
        try (Lease held = locks.tryAcquire(resource, longTtl()).orElseThrow()) {
            long started = System.nanoTime();
            LockAcquisitionException e = assertThrows(LockAcquisitionException.class,
                    () -> locks.acquire(resource, Duration.ofSeconds(1), Duration.ofMillis(300)));
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertEquals(LockAcquisitionException.Reason.TIMED_OUT, e.reason());
            assertEquals(resource, e.resource());
            assertTrue(e.getMessage().contains(resource), e.getMessage());
            assertTrue(e.getMessage().contains(storeName()), e.getMessage() + " should name " + storeName());
            assertTrue(tookMillis >= 290, "gave up after " + tookMillis + " ms, before maxWait");
            assertTrue(held.isHeld());
        }
    }

    @Test
    void aWaitingAcquireGetsTheLockWhenItExpires() {
        FencedLocks locks = open(Options.plain());
        FencedLocks other = open(Options.plain());
        String resource = newResource();
        Lease expiring = locks.tryAcquire(resource, Duration.ofMillis(200)).orElseThrow();
        try (Lease successor = other.acquire(resource, longTtl(), Duration.ofSeconds(10))) {
            assertTrue(successor.fence() > expiring.fence());
            // The store let the successor in after the TTL, so it has passed here as well.
            assertFalse(expiring.isHeld());
            expiring.close(); // must not release the successor's lock
            assertTrue(successor.isHeld());
            assertTrue(locks.tryAcquire(resource, longTtl()).isEmpty(), "the successor still holds it");
        }
        assertTrue(locks.tryAcquire(resource, longTtl()).isPresent());
    }

    @Test
    void aLeaseWhoseLockEndedAtTheStoreCannotExtendOrReleaseItsSuccessorsLock() throws Exception {
        FencedLocks locks = open(Options.plain());
        FencedLocks other = open(Options.plain());
        String resource = newResource();
        Lease stale = locks.tryAcquire(resource, Duration.ofSeconds(30).compareTo(longTtl()) < 0
                ? Duration.ofSeconds(30) : longTtl()).orElseThrow();
        expireAtStore(resource);
        Lease successor = awaitAcquired(other, resource);
        assertTrue(successor.fence() > stale.fence());

        assertFalse(StoreLocks.renewNow(stale, Duration.ofSeconds(5)), "compare-and-extend by the stale lease");
        assertFalse(stale.isHeld());
        stale.close();
        assertTrue(locks.tryAcquire(resource, longTtl()).isEmpty(), "compare-and-delete left the successor's lock");

        assertTrue(StoreLocks.renewNow(successor, Duration.ofSeconds(5)));
        successor.close();
        assertTrue(locks.tryAcquire(resource, longTtl()).isPresent());
    }

    @Test
    void theWatchdogKeepsALeasePastItsTtlAndNoticesWhenItIsLost() throws Exception {
        ScheduledThreadPoolExecutor renewals = new ScheduledThreadPoolExecutor(1);
        try {
            FencedLocks locks = open(new Options(renewals, null));
            FencedLocks other = open(Options.plain());
            String resource = newResource();
            // long enough that a renewal delayed by a loaded machine (a CI runner) is still in time
            Duration ttl = Duration.ofMillis(3000).compareTo(longTtl()) < 0 ? Duration.ofMillis(3000) : longTtl();
            Lease lease = locks.tryAcquire(resource, ttl).orElseThrow();
            Thread.sleep(ttl.toMillis() * 2);
            assertTrue(lease.isHeld(), "renewed past its TTL");
            assertTrue(other.tryAcquire(resource, longTtl()).isEmpty());

            expireAtStore(resource);
            Lease successor = awaitAcquired(other, resource);
            // The next renewal (within a third of the TTL) finds the lock in other hands.
            ServerProcess.awaitUntil("the renewal notices the loss", ttl.multipliedBy(2), () -> !lease.isHeld());
            assertFalse(StoreLocks.isRenewing(lease));
            lease.close();
            assertTrue(successor.isHeld());
            assertTrue(locks.tryAcquire(resource, longTtl()).isEmpty());
            successor.close();
        } finally {
            renewals.shutdownNow();
        }
    }

    @Test
    void aPausedHolderLosesItsLockToALargerFenceAndCannotTakeItBack() throws Exception {
        // The holder's process "pauses": its thread stops at a latch, and so does its renewal
        // schedule, the way a GC pause or a frozen VM stops both.
        ScheduledThreadPoolExecutor holderSchedule = new ScheduledThreadPoolExecutor(1);
        ExecutorService holderThread = Executors.newSingleThreadExecutor();
        try {
            FencedLocks holderProcess = open(new Options(holderSchedule, null));
            FencedLocks otherProcess = open(Options.plain());
            String resource = newResource();
            CountDownLatch acquired = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            CountDownLatch scheduleFrozen = new CountDownLatch(1);
            AtomicLong heldFence = new AtomicLong();
            Future<String> holder = holderThread.submit(() -> {
                try (Lease lease = holderProcess.acquire(resource, Duration.ofMillis(300), Duration.ofSeconds(5))) {
                    heldFence.set(lease.fence());
                    acquired.countDown();
                    resume.await(); // the pause
                    assertFalse(lease.isHeld());
                    assertFalse(StoreLocks.renewNow(lease, Duration.ofSeconds(5)));
                    try {
                        lease.runFenced(() -> fail("stale work must not start"));
                        return "ran";
                    } catch (IllegalStateException expected) {
                        return expected.getMessage();
                    }
                } // close(): must not release the successor's lock
            });
            assertTrue(acquired.await(10, TimeUnit.SECONDS));
            holderSchedule.execute(() -> {
                scheduleFrozen.countDown();
                try {
                    resume.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(scheduleFrozen.await(5, TimeUnit.SECONDS));

            Lease successor = otherProcess.acquire(resource, longTtl(), Duration.ofSeconds(15));
            assertTrue(successor.fence() > heldFence.get());

            resume.countDown();
            String outcome = holder.get(10, TimeUnit.SECONDS);
            assertTrue(outcome.contains("no longer held") && outcome.contains(resource), outcome);
            assertTrue(successor.isHeld());
            assertTrue(otherProcess.tryAcquire(resource, longTtl()).isEmpty(), "the successor keeps it");
            successor.close();
            assertTrue(otherProcess.tryAcquire(resource, longTtl()).isPresent());
        } finally {
            holderThread.shutdownNow();
            holderSchedule.shutdownNow();
        }
    }

    @Test
    void aReleaseInOneClientWakesAWaiterInAnotherWithoutPolling() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(wakesWaitersAcrossClients(),
                "this store has no release notifications across clients: its waiters poll");
        FencedLocks holderProcess = open(Options.plain());
        // A 30 s poll interval: only the release notification can wake the waiter in time.
        FencedLocks waiterProcess = open(new Options(null, Duration.ofSeconds(30)));
        String resource = newResource();
        ExecutorService waiterThread = Executors.newSingleThreadExecutor();
        try {
            Lease held = holderProcess.tryAcquire(resource, longTtl()).orElseThrow();
            Future<Lease> waiter = waiterThread.submit(() -> waiterProcess.acquire(resource, longTtl(), Duration.ofSeconds(20)));
            Thread.sleep(1000); // the waiter's first attempt failed and it waits
            long released = System.nanoTime();
            held.close();
            try (Lease next = waiter.get(10, TimeUnit.SECONDS)) {
                long wokeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
                assertTrue(wokeMillis < 5000, "the waiter took " + wokeMillis + " ms: it polled");
                assertTrue(next.fence() > held.fence());
            }
        } finally {
            waiterThread.shutdownNow();
        }
    }

    @Test
    void fencedHelpersEnterTheLeasesFenceUnderTheResourceNameAndRestoreThePreviousOne() throws Exception {
        FencedLocks locks = open(Options.plain());
        String resource = newResource();
        Lease lease = locks.tryAcquire(resource, longTtl()).orElseThrow();
        try (Fence.Scope outer = Fence.enter(Long.MAX_VALUE - 1)) {
            lease.runFenced(() -> {
                assertEquals(lease.fence(), Fence.current().getAsLong());
                assertEquals(Optional.of(resource), Fence.currentLock());
            });
            assertEquals(Long.MAX_VALUE - 1, Fence.current().getAsLong());
            assertEquals(lease.fence(), (long) lease.callFenced(() -> Fence.current().getAsLong()));
            assertEquals(Long.MAX_VALUE - 1, Fence.current().getAsLong());
        }
        assertTrue(Fence.current().isEmpty());
        lease.close();
        IllegalStateException stale = assertThrows(IllegalStateException.class, () -> lease.runFenced(() -> { }));
        assertTrue(stale.getMessage().contains(resource));
        assertTrue(Fence.current().isEmpty());
    }

    /**
     * A TTL this store cannot extend a lease acquired with {@code acquiredTtl} to, or null when it
     * can extend to any: etcd keeps the TTL it granted, ZooKeeper its session timeout.
     */
    protected Duration unextendableTtl(Duration acquiredTtl) {
        return null;
    }

    @Test
    void extendKeepsTheFenceAndTouchesOnlyItsOwnTenure() throws Exception {
        FencedLocks locks = open(Options.plain());
        FencedLocks other = open(Options.plain());
        String resource = newResource();
        Lease lease = locks.tryAcquire(resource, longTtl()).orElseThrow();
        assertTrue(lease.extend(longTtl()), "a held lease extends");
        assertTrue(lease.isHeld());
        assertTrue(other.tryAcquire(resource, longTtl()).isEmpty(), "still the extended lease's lock");
        assertThrows(IllegalArgumentException.class, () -> lease.extend(Duration.ZERO));

        expireAtStore(resource);
        Lease successor = awaitAcquired(other, resource);
        assertFalse(lease.extend(longTtl()), "compare-and-extend by the stale lease");
        assertFalse(lease.isHeld(), "a failed extend loses the lease for good");
        assertTrue(successor.isHeld());
        assertTrue(locks.tryAcquire(resource, longTtl()).isEmpty(), "the successor's lock was left alone");
        successor.close();
        assertFalse(successor.extend(longTtl()), "a closed lease does not extend");
    }

    @Test
    void anExtensionTheStoreCannotHonourIsRefusedWithAMessage() {
        Duration acquired = longTtl();
        Duration tooLong = unextendableTtl(acquired);
        Assumptions.assumeTrue(tooLong != null, storeName() + " extends a lease to any TTL");
        FencedLocks locks = open(Options.plain());
        Lease lease = locks.tryAcquire(newResource(), acquired).orElseThrow();
        RuntimeException refused = assertThrows(RuntimeException.class, () -> lease.extend(tooLong));
        assertTrue(refused instanceof UnsupportedOperationException || refused instanceof IllegalArgumentException,
                refused.toString());
        assertTrue(refused.getMessage().contains(String.valueOf(tooLong.toMillis())), refused.getMessage());
        assertTrue(lease.isHeld(), "a refused extension leaves the lease as it was");
        lease.close();
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsSent() {
        FencedLocks locks = open(Options.plain());
        assertThrows(IllegalArgumentException.class, () -> locks.tryAcquire(" ", Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> locks.tryAcquire("r", Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> locks.tryAcquire("r", Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> locks.acquire("r", Duration.ofSeconds(1), Duration.ofMillis(-1)));
        assertThrows(NullPointerException.class, () -> locks.tryAcquire(null, Duration.ofSeconds(1)));
    }

    @Test
    void closedLocksRefuseToAcquire() {
        FencedLocks locks = newLocks(Options.plain());
        locks.close();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> locks.tryAcquire(newResource(), Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void measureAcquireAndReleaseRoundTrips() {
        FencedLocks locks = open(Options.plain());
        String resource = newResource();
        for (int i = 0; i < 100; i++) { // warm-up
            locks.tryAcquire(resource, longTtl()).orElseThrow().close();
        }
        int cycles = 300;
        long started = System.nanoTime();
        for (int i = 0; i < cycles; i++) {
            locks.tryAcquire(resource, longTtl()).orElseThrow().close();
        }
        double micros = (System.nanoTime() - started) / 1000.0 / cycles;
        System.out.printf("lock round trip [%s]: tryAcquire + close = %.1f us per cycle (mean of %d)%n", label(), micros, cycles);
    }

    /** The lock on {@code resource} once the store has let go of it (an expiry may take a moment). */
    protected final Lease awaitAcquired(FencedLocks locks, String resource) {
        return locks.acquire(resource, longTtl(), Duration.ofSeconds(15));
    }
}
