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
}
