package dev.fencing.agent.bootstrap;

/**
 * The only agent class that instrumented code calls. Internal to the fencing agent; may change in
 * any release.
 *
 * <p>It is loaded by the bootstrap class loader (the agent appends a small jar holding this
 * package and {@code dev.fencing.Fence} to the bootstrap search path), so advice inlined into a
 * class of any class loader can reach it. It may therefore name only {@code java.base} types:
 * {@code java.sql} is not visible from the bootstrap loader. The work is done by {@link Hooks},
 * implemented by the agent on the system class loader and installed once.
 *
 * <p>The call depth counts the intercepted {@code Driver.connect} / {@code DataSource.getConnection}
 * calls (and a pool's own connection-making methods) active on a thread: only the outermost one
 * hands its connection to {@link Hooks#connectionReturned}.
 */
public final class AgentBridge {

    /** What the agent does at the intercepted points. */
    public interface Hooks {

        /**
         * Called when the outermost intercepted call of a thread returns a connection (a
         * {@code java.sql.Connection}); returns what the caller gets instead: the connection
         * fenced, or as it was. Throws (an {@code SQLException}) when it cannot be fenced; it has
         * then been closed.
         *
         * @param source     the driver or data source that returned it
         * @param url        the URL given to {@code Driver.connect}, else null
         * @param covariant  true when the method's declared return type is a subtype of
         *                   {@code java.sql.Connection}, which a fenced wrapper cannot be
         */
        Object connectionReturned(Object source, Object connection, String url, boolean covariant) throws Exception;

        /** A fenced lock (Redisson's {@code RFencedLock}) returned a token to this thread. */
        void tokenAcquired(Object lock, Object token);

        /** A lock's {@code method} ({@code unlock}, {@code forceUnlock}, ...) returned or threw on this thread. */
        void lockReleased(Object lock, String method, Throwable failure);
    }

    private static final ThreadLocal<int[]> DEPTH = new ThreadLocal<>() {
        @Override
        protected int[] initialValue() {
            return new int[1];
        }
    };

    private static volatile Hooks hooks;

    private AgentBridge() {
    }

    /** Installs the agent's hooks; only once. */
    public static synchronized void install(Hooks agentHooks) {
        if (hooks != null) {
            throw new IllegalStateException("the fencing agent is installed already");
        }
        hooks = agentHooks;
    }

    public static boolean installed() {
        return hooks != null;
    }

    /** Entering an intercepted call (or a pool's connection-making method). */
    public static void enter() {
        DEPTH.get()[0]++;
    }

    /** Leaving a pool's connection-making method: only the depth changes. */
    public static void leave() {
        int[] depth = DEPTH.get();
        if (depth[0] > 0) {
            depth[0]--;
        }
    }

    /**
     * Leaving an intercepted call: the connection the caller gets. Only the outermost call of the
     * thread hands a connection it returns (not an exception) to the hooks.
     */
    public static Object exit(Object source, Object connection, Throwable thrown, String url, boolean covariant)
            throws Exception {
        int[] depth = DEPTH.get();
        if (depth[0] > 0) {
            depth[0]--;
        }
        if (depth[0] > 0 || thrown != null || connection == null) {
            return connection;
        }
        Hooks current = hooks;
        if (current == null) {
            closeQuietly(connection);
            throw new IllegalStateException("fencing agent: a connection was intercepted before the agent was ready");
        }
        return current.connectionReturned(source, connection, url, covariant);
    }

    /**
     * A bridge method ({@code Connection connect(..)} over a covariant {@code connect}) returns
     * normally: like {@link #exit} with no exception. Its call to the covariant method was nested.
     */
    public static Object bridgeReturned(Object connection, Object source, String url) throws Exception {
        return exit(source, connection, null, url, false);
    }

    public static void tokenAcquired(Object lock, Object token) {
        Hooks current = hooks;
        if (current != null && token != null) {
            current.tokenAcquired(lock, token);
        }
    }

    public static void lockReleased(Object lock, String method, Throwable failure) {
        Hooks current = hooks;
        if (current != null) {
            current.lockReleased(lock, method, failure);
        }
    }

    private static void closeQuietly(Object connection) {
        if (connection instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // already failing; the connection is not handed out either way
            }
        }
    }
}
