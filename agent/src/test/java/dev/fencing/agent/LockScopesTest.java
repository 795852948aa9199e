package dev.fencing.agent;

import dev.fencing.Fence;
import org.junit.jupiter.api.Test;

import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

class LockScopesTest {

    private final LockScopes locks = new LockScopes();

    @Test
    void aTokenIsTheFenceFromAcquireToRelease() {
        assertThat(locks.isEmpty()).isTrue();
        locks.acquired("order:1", 33);
        assertThat(Fence.current()).isEqualTo(OptionalLong.of(33));
        assertThat(Fence.currentLock()).isEqualTo(Optional.of("order:1"));

        locks.released("order:1", false);
        assertThat(Fence.current()).isEmpty();
        assertThat(locks.isEmpty()).isTrue();
    }

    @Test
    void reentryMovesUpToTheNewestTokenAndHoldsAreCounted() {
        locks.acquired("order:1", 33);
        locks.acquired("order:1", 34); // Redisson hands out a new token on re-entry
        locks.released("order:1", false);
        assertThat(Fence.current()).isEqualTo(OptionalLong.of(34)); // never back to 33
        locks.released("order:1", false);
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void aForcedOrFailedUnlockEndsEveryHold() {
        locks.acquired("order:1", 7);
        locks.acquired("order:1", 8);
        locks.released("order:1", true);
        assertThat(Fence.current()).isEmpty();
    }

    @Test
    void theApplicationsOwnFenceComesBackAndOtherLocksKeepTheirs() {
        try (Fence.Scope own = Fence.enter(5)) {
            locks.acquired("a", 10);
            locks.acquired("b", 20);
            assertThat(Fence.current()).isEqualTo(OptionalLong.of(20));
            locks.released("a", false); // out of order
            assertThat(Fence.current()).isEqualTo(OptionalLong.of(20));
            locks.released("b", false);
            assertThat(Fence.current()).isEqualTo(OptionalLong.of(5));
            locks.released("c", false); // never acquired here
            assertThat(Fence.current()).isEqualTo(OptionalLong.of(5));
        }
        assertThat(Fence.current()).isEmpty();
    }
}
