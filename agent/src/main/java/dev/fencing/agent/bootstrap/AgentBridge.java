package dev.fencing.agent.bootstrap;

import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

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
         * @param url        the URL given to {@code Driver.connect} (this call's, else the first
         *                   one nested in it on this thread), else null
         * @param covariant  true when the method's declared return type is a subtype of
         *                   {@code java.sql.Connection}, which a fenced wrapper cannot be
         */
        Object connectionReturned(Object source, Object connection, String url, boolean covariant) throws Exception;

        /**
         * Called when the outermost intercepted call of a thread is a data source's
         * {@code getXAConnection} / {@code getPooledConnection} and returned {@code pooled} (a
         * {@code javax.sql.PooledConnection}). Throws (an {@code SQLException}) when the
         * connections it hands out would not be fenced; it has then been closed.
         */
        void pooledConnectionReturned(Object source, Object pooled) throws Exception;

        /**
         * Called when a public method of a known pool's class ({@code method}: declaring class and
         * name, {@code type.name}, declared to return
         * {@code declared}: a connection type, a {@code Future}, a pooled connection, or a generic
         * pool's object) returned {@code result} to {@code caller} outside every intercepted call
         * of the thread. Returns what the caller gets: {@code result} when the caller is the
         * pool's own code or it is no connection; a connection fenced, or a {@code Future} whose
         * connections are; throws (an {@code SQLException}) when it cannot stand in a fenced one
         * for it (it has then been closed).
         */
        Object handedOut(Object pool, String method, String declared, Object result, Class<?> caller) throws Exception;

        /**
         * Whether {@code receiver}, the object a class of a known pool ({@code pool}) calls
         * through one of the pool's interfaces with a connection argument, is the pool's own (its
         * class in the pool's packages): then the connection passes raw.
         */
        boolean poolsOwn(Class<?> pool, Class<?> receiver);

        /**
         * The connection {@code pool} passes to {@code receiver}'s {@code method} (code outside
         * the pool's packages: the application's callback) declared as {@code declared}: fenced,
         * or as it was when nothing is fenced or it is fenced already. Throws (an
         * {@code SQLException}) when it cannot be fenced or {@code declared} is a subtype of
         * {@code java.sql.Connection} a fenced connection cannot be (it has then been closed).
         */
        Object passedToCallback(Class<?> pool, Object receiver, String method, Class<?> declared, Object connection)
                throws Exception;

        /** A fenced lock (Redisson's {@code RFencedLock}) returned a token to this thread. */
        void tokenAcquired(Object lock, Object token);

        /** A lock's {@code method} ({@code unlock}, {@code forceUnlock}, ...) returned or threw on this thread. */
        void lockReleased(Object lock, String method, Throwable failure);
    }

    /** The intercepted calls active on one thread, and the first URL a driver was asked for among them. */
    private static final class Calls {
        int depth;
        String connectUrl;
    }

    private static final ThreadLocal<Calls> CALLS = ThreadLocal.withInitial(Calls::new);

    private static volatile Hooks hooks;

    /**
     * Called by the advice inlined into a pool's handout methods, so that
     * {@code getCallerClass()} names the class that called the pool's method.
     */
    public static final StackWalker CALLERS = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

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
        Calls calls = CALLS.get();
        if (calls.depth++ == 0) {
            calls.connectUrl = null;
        }
    }

    /**
     * Entering {@code Driver.connect(url, ..)}: also remembers the URL when it is the first one
     * of the outermost call, so that a data source that opens its connection through a driver
     * (nested) is matched against the URL it was configured with.
     */
    public static void enterConnect(String url) {
        Calls calls = CALLS.get();
        if (calls.depth++ == 0 || calls.connectUrl == null) {
            calls.connectUrl = url;
        }
    }

    /** Leaving a pool's connection-making method: only the depth changes. */
    public static void leave() {
        Calls calls = CALLS.get();
        if (calls.depth > 0) {
            calls.depth--;
        }
    }

    /**
     * Leaving a data source's {@code getXAConnection} / {@code getPooledConnection}: the
     * connection it opened inside was nested (a driver's XA connection casts it to its own type);
     * when it is the outermost call, the hooks check that the connections {@code pooled} hands
     * out are fenced.
     */
    public static void pooledExit(Object source, Object pooled, Throwable thrown) throws Exception {
        Calls calls = CALLS.get();
        if (calls.depth > 0) {
            calls.depth--;
        }
        if (calls.depth > 0 || thrown != null || pooled == null) {
            return;
        }
        Hooks current = hooks;
        if (current == null) {
            closeQuietly(pooled);
            throw new IllegalStateException("fencing agent: a connection was intercepted before the agent was ready");
        }
        current.pooledConnectionReturned(source, pooled);
    }

    /**
     * Leaving an intercepted call: the connection the caller gets. Only the outermost call of the
     * thread hands a connection it returns (not an exception) to the hooks.
     */
    public static Object exit(Object source, Object connection, Throwable thrown, String url, boolean covariant)
            throws Exception {
        Calls calls = CALLS.get();
        if (calls.depth > 0) {
            calls.depth--;
        }
        if (calls.depth > 0 || thrown != null || connection == null) {
            return connection;
        }
        Hooks current = hooks;
        if (current == null) {
            closeQuietly(connection);
            throw new IllegalStateException("fencing agent: a connection was intercepted before the agent was ready");
        }
        return current.connectionReturned(source, connection, url != null ? url : calls.connectUrl, covariant);
    }

    /**
     * A bridge method ({@code Connection connect(..)} over a covariant {@code connect}) returns
     * normally: like {@link #exit} with no exception. Its call to the covariant method was nested.
     */
    public static Object bridgeReturned(Object connection, Object source, String url) throws Exception {
        return exit(source, connection, null, url, false);
    }

    /** True when no intercepted call (connect, getConnection, a pool's own connection-making method) is active on this thread. */
    public static boolean outermost() {
        return CALLS.get().depth == 0;
    }

    /** A pool's public method returned {@code result} outside every intercepted call: see {@link Hooks#handedOut}. */
    public static Object handedOut(Object pool, String method, String declared, Object result, Class<?> caller)
            throws Exception {
        Hooks current = hooks;
        if (current == null) {
            // unreachable (the hooks are installed before any class is woven); fail closed as exit() does
            throw new IllegalStateException("fencing agent: a pool's handout was intercepted before the agent was ready");
        }
        return current.handedOut(pool, method, declared, result, caller);
    }

    private static final MethodHandle POOLS_OWN;
    private static final MethodHandle CALL_PASSING;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            POOLS_OWN = lookup.findStatic(AgentBridge.class, "poolsOwn",
                    MethodType.methodType(boolean.class, Class.class, Object.class));
            CALL_PASSING = lookup.findStatic(AgentBridge.class, "callPassing", MethodType.methodType(Object.class,
                    MethodHandle.class, Class.class, String.class, String.class, Object[].class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The bootstrap of a pool's call through its own interface that passes a connection (see the
     * agent's {@code CallbackSites}): {@code target} is the interface method, {@code kinds} one
     * letter per parameter after the receiver ({@code C}: a {@code java.sql.Connection},
     * {@code S}: a subtype of it, {@code -}: anything else). When the receiver is the pool's own
     * object the call is the original one; otherwise its connections are fenced first.
     */
    public static CallSite callback(MethodHandles.Lookup caller, String name, MethodType type, MethodHandle target,
                                    String kinds) {
        Class<?> pool = caller.lookupClass();
        MethodHandle own = MethodHandles.dropArguments(POOLS_OWN.bindTo(pool), 1,
                type.parameterList().subList(1, type.parameterCount())).asType(type.changeReturnType(boolean.class));
        MethodHandle passing = MethodHandles.insertArguments(CALL_PASSING, 0, target, pool,
                        type.parameterType(0).getName() + "." + name, kinds)
                .asCollector(Object[].class, type.parameterCount()).asType(type);
        return new ConstantCallSite(MethodHandles.guardWithTest(own, target.asType(type), passing));
    }

    /** True for a receiver of the pool's own (or none: the call then throws as it would have). */
    private static boolean poolsOwn(Class<?> pool, Object receiver) {
        Hooks current = hooks;
        return receiver == null || current != null && current.poolsOwn(pool, receiver.getClass());
    }

    /** {@code arguments}: the receiver, then the call's arguments; each connection among them fenced or refused. */
    private static Object callPassing(MethodHandle target, Class<?> pool, String method, String kinds,
                                      Object[] arguments)
            throws Throwable {
        Hooks current = hooks;
        if (current == null) {
            // unreachable (the hooks are installed before any class is woven); fail closed as exit() does
            throw new IllegalStateException("fencing agent: a pool's callback was intercepted before the agent was ready");
        }
        for (int i = 0; i < kinds.length(); i++) {
            if (kinds.charAt(i) != '-' && arguments[i + 1] != null) {
                arguments[i + 1] = current.passedToCallback(pool, arguments[0], method,
                        target.type().parameterType(i + 1), arguments[i + 1]);
            }
        }
        return target.invokeWithArguments(arguments);
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
        try {
            if (connection instanceof AutoCloseable closeable) {
                closeable.close();
            } else if (connection != null) {
                // javax.sql.PooledConnection is not AutoCloseable, and java.sql is not visible here
                connection.getClass().getMethod("close").invoke(connection);
            }
        } catch (Exception ignored) {
            // already failing; the connection is not handed out either way
        }
    }
}
