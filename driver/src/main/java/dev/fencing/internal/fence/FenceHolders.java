package dev.fencing.internal.fence;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that have ever entered a fence scope, each registered once (at its first scope, not
 * at every scope), so that a write refused for lack of a fence can name the threads that hold one
 * at that moment: the usual cause is work a lock holder handed to another thread. Read only to
 * explain a refusal, never to decide anything.
 *
 * <p>Public because under the javaagent this class and {@code dev.fencing.Fence} live on the
 * bootstrap class path while the exceptions that read it are loaded by the application's (or the
 * agent's) loader: the same package name in two loaders is two runtime packages, where
 * package-private access is an {@code IllegalAccessError}.
 */
public final class FenceHolders {

    /** One thread's fence state, as {@code Fence} keeps it; read racily from other threads, for messages only. */
    public interface Holder {
        /** The thread, or null once it is gone. */
        Thread thread();

        /** Whether the thread has a fence in scope now. */
        boolean holdsFence();

        /** The lock the thread's current fence names, or null. */
        String lockName();
    }

    private static final Set<Holder> HOLDERS = ConcurrentHashMap.newKeySet();
    /** The size at which the next registration drops the holders of threads that are gone. */
    private static final AtomicInteger SWEEP_AT = new AtomicInteger(256);

    private FenceHolders() {
    }

    /** Registers a thread's holder; called once per thread, at its first fence scope. */
    public static void register(Holder holder) {
        HOLDERS.add(holder);
        int size = HOLDERS.size();
        if (size >= SWEEP_AT.get()) {
            HOLDERS.removeIf(FenceHolders::gone);
            SWEEP_AT.set(Math.max(256, 2 * HOLDERS.size()));
        }
    }

    /**
     * The other live threads that hold a fence now, at most {@code max}, each as
     * {@code 'name'} or {@code 'name' (lock 'lock')}.
     */
    public static List<String> othersHoldingAFence(int max) {
        Thread self = Thread.currentThread();
        List<String> others = new ArrayList<>();
        for (Holder holder : HOLDERS) {
            Thread thread = holder.thread();
            if (thread == null || !thread.isAlive()) {
                HOLDERS.remove(holder);
            } else if (thread != self && holder.holdsFence() && others.size() < max) {
                String lock = holder.lockName();
                others.add("'" + thread.getName() + "'" + (lock == null ? "" : " (lock '" + lock + "')"));
            }
        }
        return others;
    }

    private static boolean gone(Holder holder) {
        Thread thread = holder.thread();
        return thread == null || !thread.isAlive();
    }

    /**
     * The sentence a refusal adds when other threads hold a fence: which ones, and that the fence
     * is theirs; empty when none does.
     */
    public static String heldElsewhere() {
        List<String> others = othersHoldingAFence(3);
        if (others.isEmpty()) {
            return "";
        }
        return "The fence is held by " + (others.size() == 1 ? "thread " : "threads ") + String.join(", ", others)
                + ", not by this one. ";
    }
}
