package dev.fencing.agent;

import dev.fencing.agent.bootstrap.AgentBridge;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * The code inlined into instrumented methods. It calls only {@link AgentBridge} (on the bootstrap
 * loader, visible from every class loader) and never suppresses an exception of its own: when
 * the agent cannot fence a connection, the intercepted call throws.
 */
final class Advices {

    private Advices() {
    }

    /** {@code Driver.connect(String, Properties)} declared to return {@code java.sql.Connection}. */
    static final class DriverConnect {
        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(0) String url) {
            AgentBridge.enterConnect(url);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object driver, @Advice.Argument(0) String url,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object connection,
                         @Advice.Thrown Throwable thrown) throws Exception {
            connection = AgentBridge.exit(driver, connection, thrown, url, false);
        }
    }

    /** {@code getConnection()} / {@code getConnection(String, String)} of a data source, returning {@code java.sql.Connection}. */
    static final class GetConnection {
        @Advice.OnMethodEnter
        static void enter() {
            AgentBridge.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object dataSource,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object connection,
                         @Advice.Thrown Throwable thrown) throws Exception {
            connection = AgentBridge.exit(dataSource, connection, thrown, null, false);
        }
    }

    /**
     * A connect / getConnection declared to return a subtype of {@code java.sql.Connection}: a
     * fenced connection cannot be returned from it, so when it is the outermost call the hooks
     * refuse (called through the interface, the bridge method is the outermost one instead).
     */
    static final class Covariant {
        @Advice.OnMethodEnter
        static void enter() {
            AgentBridge.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object source,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object connection,
                         @Advice.Thrown Throwable thrown) throws Exception {
            AgentBridge.exit(source, connection, thrown, null, true);
        }
    }

    /**
     * A static method of a driver that returns the driver's own connection type (MariaDB's
     * {@code Driver.connect(Configuration)}): called outermost, it is refused like {@link Covariant};
     * nested (the driver's {@code connect(String, Properties)}, its data sources) it is the driver's own.
     */
    static final class StaticCovariant {
        @Advice.OnMethodEnter
        static void enter() {
            AgentBridge.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Origin Class<?> driver,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object connection,
                         @Advice.Thrown Throwable thrown) throws Exception {
            AgentBridge.exit(driver, connection, thrown, null, true);
        }
    }

    /** A static method of a driver that returns {@code java.sql.Connection}: fenced like {@link DriverConnect}. */
    static final class StaticConnect {
        @Advice.OnMethodEnter
        static void enter() {
            AgentBridge.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Origin Class<?> driver,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object connection,
                         @Advice.Thrown Throwable thrown) throws Exception {
            connection = AgentBridge.exit(driver, connection, thrown, null, false);
        }
    }

    /**
     * {@code getXAConnection} / {@code getPooledConnection} of a data source: the physical
     * connection it opens inside is the driver's (nested); the hooks check what it returns.
     */
    static final class PooledFactory {
        @Advice.OnMethodEnter
        static void enter() {
            AgentBridge.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object dataSource,
                         @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object pooled,
                         @Advice.Thrown Throwable thrown) throws Exception {
            AgentBridge.pooledExit(dataSource, pooled, thrown);
        }
    }

    /** A pool's own connection-making method: connections made there stay the pool's, unfenced. */
    static final class PoolInternal {
        @Advice.OnMethodEnter
        static void enter() {
            AgentBridge.enter();
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit() {
            AgentBridge.leave();
        }
    }

    /**
     * A public method of a known pool's class that may hand out a connection (returns a connection
     * type, a {@code Future}, a pooled connection, or a generic pool's object): when no intercepted
     * call encloses it, the hooks see what it returns and who called it. It does not count as an
     * intercepted call itself: a pool's handouts nest in one another, and the pool's own calls are
     * told apart by their caller.
     */
    static final class Handout {
        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object pool, @Advice.Origin("#t.#m") String method,
                         @Advice.Origin("#r") String declared,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown Throwable thrown) throws Exception {
            if (thrown == null && result != null && AgentBridge.outermost()) {
                // inlined into the pool's method: the caller is whoever called that method
                result = AgentBridge.handedOut(pool, method, declared, result, AgentBridge.CALLERS.getCallerClass());
            }
        }
    }

    /** Redisson {@code RFencedLock.lockAndGetToken} / {@code tryLockAndGetToken}. */
    static final class FencedLockToken {
        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object lock, @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object token,
                         @Advice.Thrown Throwable thrown) {
            if (thrown == null && token != null) {
                AgentBridge.tokenAcquired(lock, token);
            }
        }
    }

    /** Redisson {@code unlock()}, {@code forceUnlock()}, {@code unlockAsync()}. */
    static final class Unlock {
        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This Object lock, @Advice.Origin("#m") String method,
                         @Advice.Thrown Throwable thrown) {
            AgentBridge.lockReleased(lock, method, thrown);
        }
    }
}
