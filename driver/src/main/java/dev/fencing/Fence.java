package dev.fencing;

import dev.fencing.internal.fence.FenceHolders;

import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/**
 * The calling thread's current fencing token.
 *
 * <p>Every write that fencing-jdbc sends to a fenced table carries the token in scope on the
 * thread that executes it. A scope is entered with {@link #enter(long)} (or
 * {@link #enter(String, long)}, naming the lock whose tenure the token belongs to) and left by
 * closing it; scopes nest.
 *
 * <p><b>What is current.</b> The fence of the most recently entered scope that is still open, on
 * this thread. Closing a scope ends its own fence and nothing else: closing scopes out of order,
 * closing an outer scope while an inner one is open (the inner one's fence stays current until it is
 * closed; then the fence of the newest scope still open, or none), or closing a scope from another
 * thread (its fence stops being current on the thread that entered it, at that thread's next
 * statement) never leaves a closed scope's fence in effect. See {@code docs/fence-scopes.md}.
 *
 * <pre>{@code
 * try (Fence.Scope scope = Fence.enter(lease.fence())) {
 *     orders.markPaid(42);   // every fenced write here carries lease.fence()
 * }
 * }</pre>
 *
 * <p>The fence lives in a thread-local: work handed to another thread must carry it along,
 * with {@link #wrap(Runnable)} or {@link #wrap(Callable)}.
 */
public final class Fence {

    /** Each thread's stack of scopes; created (and registered with {@link FenceHolders}) at its first scope. */
    private static final ThreadLocal<Stack> CURRENT = new ThreadLocal<>();

    private Fence() {
    }

    /**
     * Makes {@code token} the calling thread's fence until the returned scope is closed.
     *
     * @throws IllegalArgumentException if {@code token} is not positive
     */
    public static Scope enter(long token) {
        return push(null, token);
    }

    /**
     * Makes {@code token}, issued by the lock named {@code lockName}, the calling thread's fence
     * until the returned scope is closed. Tables in {@code epoch} mode accept only fences that
     * name their lock.
     *
     * @throws IllegalArgumentException if {@code token} is not positive or the name is blank
     */
    public static Scope enter(String lockName, long token) {
        Objects.requireNonNull(lockName, "lockName");
        if (lockName.isBlank()) {
            throw new IllegalArgumentException("lockName must not be blank");
        }
        return push(lockName, token);
    }

    /** The calling thread's fence, or empty when no scope is open. */
    public static OptionalLong current() {
        Frame frame = open();
        return frame == null ? OptionalLong.empty() : OptionalLong.of(frame.token);
    }

    /** The name of the lock the current fence belongs to, when it was entered with one. */
    public static Optional<String> currentLock() {
        Frame frame = open();
        return frame == null ? Optional.empty() : Optional.ofNullable(frame.lockName);
    }

    /**
     * Returns a runnable that runs {@code task} under the fence that is current on the calling
     * thread now (or under no fence when none is), whichever thread runs it. The fence is captured
     * as a value: closing the caller's scope afterwards does not take it from the task.
     */
    public static Runnable wrap(Runnable task) {
        Objects.requireNonNull(task, "task");
        Frame captured = open();
        long token = captured == null ? 0 : captured.token;
        String lockName = captured == null ? null : captured.lockName;
        return () -> {
            Frame previous = top();
            install(token == 0 ? null : new Frame(token, lockName, null));
            try {
                task.run();
            } finally {
                install(previous);
            }
        };
    }

    /** Like {@link #wrap(Runnable)}, for a task that returns a value. */
    public static <T> Callable<T> wrap(Callable<T> task) {
        Objects.requireNonNull(task, "task");
        Frame captured = open();
        long token = captured == null ? 0 : captured.token;
        String lockName = captured == null ? null : captured.lockName;
        return () -> {
            Frame previous = top();
            install(token == 0 ? null : new Frame(token, lockName, null));
            try {
                return task.call();
            } finally {
                install(previous);
            }
        };
    }

    private static Scope push(String lockName, long token) {
        if (token <= 0) {
            throw new IllegalArgumentException("a fencing token must be > 0, got " + token);
        }
        Frame frame = new Frame(token, lockName, top());
        install(frame);
        return new Scope(frame, Thread.currentThread());
    }

    /**
     * The newest frame of this thread that is still open, dropping the closed ones above it (they
     * were closed out of order, or from another thread). Frames below an open one stay: each is
     * dropped when it is the newest and closed.
     */
    private static Frame open() {
        Frame top = top();
        if (top == null || !top.closed) {
            return top;
        }
        Frame frame = top;
        while (frame != null && frame.closed) {
            frame = frame.previous;
        }
        install(frame);
        return frame;
    }

    private static Frame top() {
        Stack stack = CURRENT.get();
        return stack == null ? null : stack.top;
    }

    private static void install(Frame frame) {
        Stack stack = CURRENT.get();
        if (stack == null) {
            if (frame == null) {
                return; // a thread that never had a scope needs no stack
            }
            stack = new Stack(Thread.currentThread());
            CURRENT.set(stack);
            FenceHolders.register(stack);
        }
        stack.top = frame;
    }

    /**
     * One thread's scopes: the newest frame, written only by its thread. Other threads read it
     * (racily, which is enough) only to name the threads holding a fence in a refusal's message.
     */
    private static final class Stack implements FenceHolders.Holder {
        private final WeakReference<Thread> thread;
        Frame top;

        Stack(Thread thread) {
            this.thread = new WeakReference<>(thread);
        }

        @Override
        public Thread thread() {
            return thread.get();
        }

        @Override
        public boolean holdsFence() {
            return openFrame() != null;
        }

        @Override
        public String lockName() {
            Frame frame = openFrame();
            return frame == null ? null : frame.lockName;
        }

        /** The newest open frame, without dropping the closed ones (only the owning thread does that). */
        private Frame openFrame() {
            Frame frame = top;
            while (frame != null && frame.closed) {
                frame = frame.previous;
            }
            return frame;
        }
    }

    /** One entered scope on one thread's stack of scopes, newest on top. */
    private static final class Frame {
        final long token;
        final String lockName;
        /** The frame that was on top when this one was entered. */
        final Frame previous;
        /** Set once, by {@link Scope#close()} on any thread; read by the owning thread. */
        volatile boolean closed;

        Frame(long token, String lockName, Frame previous) {
            this.token = token;
            this.lockName = lockName;
            this.previous = previous;
        }
    }

    /**
     * An open fence. Closing it ends its fence: the fence of the newest scope still open on the
     * thread that entered it becomes current (or none); closing it again does nothing.
     */
    public static final class Scope implements AutoCloseable {
        private final Frame frame;
        private final Thread owner;

        private Scope(Frame frame, Thread owner) {
            this.frame = frame;
            this.owner = owner;
        }

        /** The token this scope made current. */
        public long token() {
            return frame.token;
        }

        /**
         * Ends this scope's fence. On the thread that entered it, the fence of the newest scope
         * still open becomes current at once (or none); a scope below it that was closed out of
         * order never comes back. On another thread, the scope is marked closed and its fence stops
         * being current on the thread that entered it from that thread's next look at
         * {@link Fence#current()}: the fence is that thread's, but a closed scope's fence is never
         * in effect.
         */
        @Override
        public void close() {
            if (frame.closed) {
                return;
            }
            frame.closed = true;
            if (Thread.currentThread() == owner) {
                open();
            }
        }
    }
}
