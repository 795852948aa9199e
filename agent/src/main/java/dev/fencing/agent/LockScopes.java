package dev.fencing.agent;

import dev.fencing.Fence;

import java.util.ArrayList;
import java.util.List;

/**
 * The fences that locks acquired by the current thread put in scope: a lock's token is the
 * thread's fence from the acquire that returned it until the thread releases the lock.
 *
 * <p>Re-entrant acquires count holds; since Redisson's fenced lock hands out a new, larger token
 * on every acquire, re-entry moves the fence up to the newest token (it never goes back to an
 * older one of the same tenure, whose writes would be rejected against the newer one). With
 * several locks held, the fence is the token of the one acquired last. On every change the
 * thread's lock scopes are closed newest first and opened again, so the fence the thread had
 * before its first lock comes back when the last lock is released.
 */
final class LockScopes {

    private static final class Hold {
        final String lock;
        long token;
        int count = 1;

        Hold(String lock, long token) {
            this.lock = lock;
            this.token = token;
        }
    }

    private static final class ThreadState {
        final List<Hold> holds = new ArrayList<>();
        final List<Fence.Scope> scopes = new ArrayList<>();
    }

    private final ThreadLocal<ThreadState> state = new ThreadLocal<>();

    /** True when the current thread holds no lock tracked here. */
    boolean isEmpty() {
        return state.get() == null;
    }

    void acquired(String lock, long token) {
        ThreadState thread = state.get();
        if (thread == null) {
            thread = new ThreadState();
            state.set(thread);
        }
        Hold hold = find(thread, lock);
        if (hold == null) {
            thread.holds.add(new Hold(lock, token));
        } else {
            hold.count++;
            hold.token = Math.max(hold.token, token);
            thread.holds.remove(hold);
            thread.holds.add(hold); // the lock acquired last names the fence
        }
        reopen(thread);
    }

    /** A release of {@code lock}; {@code all} ends every hold of it (forced or failed unlock). */
    void released(String lock, boolean all) {
        ThreadState thread = state.get();
        Hold hold = thread == null ? null : find(thread, lock);
        if (hold == null) {
            return;
        }
        if (all || --hold.count <= 0) {
            thread.holds.remove(hold);
            reopen(thread);
        }
    }

    private static Hold find(ThreadState thread, String lock) {
        for (Hold hold : thread.holds) {
            if (hold.lock.equals(lock)) {
                return hold;
            }
        }
        return null;
    }

    private void reopen(ThreadState thread) {
        for (int i = thread.scopes.size() - 1; i >= 0; i--) {
            thread.scopes.get(i).close();
        }
        thread.scopes.clear();
        for (Hold hold : thread.holds) {
            thread.scopes.add(Fence.enter(hold.lock, hold.token));
        }
        if (thread.holds.isEmpty()) {
            state.remove();
        }
    }
}
