package dev.fencing;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FenceTest {

    @AfterEach
    void noFenceLeaks() {
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void scopesNestAndRestoreThePreviousFence() {
        try (Fence.Scope outer = Fence.enter(33)) {
            assertThat(Fence.current()).hasValue(33);
            try (Fence.Scope inner = Fence.enter("order:42", 34)) {
                assertThat(Fence.current()).hasValue(34);
                assertThat(Fence.currentLock()).hasValue("order:42");
            }
            assertThat(Fence.current()).hasValue(33);
            assertThat(Fence.currentLock()).isEmpty();
        }
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void closingTwiceIsHarmless() {
        try (Fence.Scope outer = Fence.enter(1)) {
            Fence.Scope inner = Fence.enter(2);
            inner.close();
            inner.close();
            assertThat(Fence.current()).hasValue(1);
        }
    }

    @Test
    void tokensMustBePositive() {
        assertThatThrownBy(() -> Fence.enter(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("> 0");
        assertThatThrownBy(() -> Fence.enter(-5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fence.enter(" ", 5)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void wrapCarriesTheCallersFenceToAnotherThreadAndLeavesItClean() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            AtomicReference<OptionalLong> seen = new AtomicReference<>();
            Runnable task;
            Callable<OptionalLong> callable;
            try (Fence.Scope ignored = Fence.enter(77)) {
                task = Fence.wrap(() -> seen.set(Fence.current()));
                callable = Fence.wrap(Fence::current);
            }
            pool.submit(task).get(5, TimeUnit.SECONDS);
            assertThat(seen.get()).hasValue(77);
            assertThat(pool.submit(callable).get(5, TimeUnit.SECONDS)).hasValue(77);
            assertThat(pool.submit(Fence::current).get(5, TimeUnit.SECONDS)).isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- scopes closed out of order, from the outside, from another thread (docs/fence-scopes.md) ----

    @Test
    void closingOutOfOrderNeverBringsBackAClosedScopesFence() {
        Fence.Scope a = Fence.enter(3);
        Fence.Scope b = Fence.enter(20);
        a.close();
        // the inner scope is still open: its fence stays current
        assertThat(Fence.current()).hasValue(20);
        b.close();
        // before the fix, b restored a's fence (3) although a was closed
        assertThat(Fence.current()).isEmpty();
        assertThat(Fence.currentLock()).isEmpty();
    }

    @Test
    void closingTheOuterOfThreeLeavesTheNewestOpenScopeCurrent() {
        Fence.Scope outer = Fence.enter("lock-a", 3);
        Fence.Scope middle = Fence.enter("lock-b", 20);
        Fence.Scope inner = Fence.enter("lock-c", 30);
        middle.close();
        assertThat(Fence.current()).hasValue(30);
        inner.close();
        // middle was closed: the newest scope still open is outer
        assertThat(Fence.current()).hasValue(3);
        assertThat(Fence.currentLock()).hasValue("lock-a");
        outer.close();
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void leasesEnteredThenClosedInAcquireOrderLeaveNoFence() {
        // two leases' enterFence() closed in the order they were acquired: ordinary code
        Fence.Scope first = Fence.enter("order:1", 7);
        Fence.Scope second = Fence.enter("order:2", 8);
        first.close();
        second.close();
        assertThat(Fence.current()).isEmpty();
        Fence.Scope third = Fence.enter(9);
        third.close();
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void aScopeClosedOnAnotherThreadStopsBeingCurrentOnItsOwnThread() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Fence.Scope outer = Fence.enter(5)) {
            Fence.Scope inner = Fence.enter("order:9", 6);
            pool.submit(inner::close).get(5, TimeUnit.SECONDS);
            // the fence belongs to this thread, but a closed scope's fence is never in effect
            assertThat(Fence.current()).hasValue(5);
            assertThat(Fence.currentLock()).isEmpty();
            inner.close();
            assertThat(Fence.current()).hasValue(5);
        } finally {
            pool.shutdownNow();
        }
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void closingTheOnlyScopeFromAnotherThreadLeavesNoFence() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Fence.Scope only = Fence.enter(11);
            pool.submit(only::close).get(5, TimeUnit.SECONDS);
            assertThat(Fence.current()).isEmpty();
            // and the other thread's own fence was not touched
            assertThat(pool.submit(Fence::current).get(5, TimeUnit.SECONDS)).isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWrappedTaskKeepsTheFenceItCapturedWhenTheCallersScopeCloses() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Callable<OptionalLong> task;
            try (Fence.Scope scope = Fence.enter("order:3", 41)) {
                task = Fence.wrap(Fence::current);
            }
            assertThat(pool.submit(task).get(5, TimeUnit.SECONDS)).hasValue(41);
            // the pooled thread is clean afterwards
            assertThat(pool.submit(Fence::current).get(5, TimeUnit.SECONDS)).isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aPooledThreadKeepsNoZombieFenceAfterOutOfOrderClosing() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            pool.submit(() -> {
                Fence.Scope a = Fence.enter(3);
                Fence.Scope b = Fence.enter(20);
                a.close();
                b.close();
            }).get(5, TimeUnit.SECONDS);
            assertThat(pool.submit(Fence::current).get(5, TimeUnit.SECONDS)).isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }
}
