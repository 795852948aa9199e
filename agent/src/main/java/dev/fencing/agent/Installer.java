package dev.fencing.agent;

import dev.fencing.agent.bootstrap.AgentBridge;
import dev.fencing.config.ConfigSources;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Properties;

import static net.bytebuddy.matcher.ElementMatchers.any;
import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBootstrapClassLoader;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Reads the configuration, installs the hooks and instruments:
 * <ul>
 *   <li>{@code connect(String, Properties)} of every {@code java.sql.Driver} and
 *       {@code getConnection()} / {@code getConnection(String, String)} of every
 *       {@code javax.sql.CommonDataSource} (pgjdbc declares them in a base class that is not a
 *       {@code DataSource}): the connection returned by the outermost such call of a thread is
 *       fenced;</li>
 *   <li>the connection-making methods of known pools ({@link #POOL_INTERNALS}), so that the
 *       connections a pool keeps stay unfenced and the one it hands out is fenced, once;</li>
 *   <li>Redisson's {@code RedissonFencedLock} token methods and lock release methods.</li>
 * </ul>
 * The agent's own classes and relocated libraries are never instrumented; the driver's
 * {@code FencingDataSource} and {@code FencingDriver} are, so that their inner calls count as
 * nested, and the fenced connection they return is recognised and left alone.
 */
final class Installer {

    private static final System.Logger LOG = System.getLogger("dev.fencing.agent");

    /**
     * Pool classes and their methods that open the connections the pool keeps (on its own
     * threads, too): calls inside them are not the application's. Pools not listed still get
     * each connection fenced once (a pool's proxy over a fenced connection is recognised through
     * {@code isWrapperFor}), only the fenced layer then sits under the pool's proxy.
     */
    static final Map<String, String> POOL_INTERNALS = Map.of(
            "com.zaxxer.hikari.pool.PoolBase", "newConnection",
            "org.apache.commons.dbcp2.PoolableConnectionFactory", "makeObject",
            "org.apache.tomcat.jdbc.pool.PooledConnection", "connect",
            "io.agroal.pool.ConnectionFactory", "createConnection");

    private Installer() {
    }

    static void install(String arguments, Instrumentation instrumentation, boolean attached) {
        if (AgentBridge.installed()) {
            LOG.log(System.Logger.Level.WARNING, "fencing agent: already installed in this JVM; "
                    + "the configuration it started with stays in effect");
            return;
        }
        long started = System.nanoTime();
        AgentSettings settings = AgentSettings.resolve(arguments, ConfigSources.standard());
        FencedTables tables = new FencedTables(settings.fencingKeys());
        AgentBridge.install(new ConnectionHooks(tables, settings.urls()));

        instrumentation.addTransformer(new FencedEntityScanner(tables), false);
        if (attached) {
            FencedEntityScanner.scanLoaded(instrumentation, tables);
        }
        agentBuilder(attached).installOn(instrumentation);

        long millis = (System.nanoTime() - started) / 1_000_000;
        LOG.log(System.Logger.Level.INFO, () -> "fencing agent " + (attached ? "attached" : "started") + " in " + millis
                + " ms; fenced tables: " + describe(tables) + "; connections to " + settings.urls());
    }

    private static String describe(FencedTables tables) {
        return tables.describe().isEmpty() ? "none yet (waiting for @Fenced entities)" : String.join(", ", tables.describe());
    }

    static AgentBuilder agentBuilder(boolean attached) {
        ElementMatcher.Junction<MethodDescription> connect = named("connect")
                .and(takesArguments(String.class, Properties.class)).and(not(isAbstract()));
        ElementMatcher.Junction<MethodDescription> getConnection = named("getConnection")
                .and(takesArguments(0).or(takesArguments(String.class, String.class))).and(not(isAbstract()));
        ElementMatcher.Junction<TypeDescription> exactlyConnection = named("java.sql.Connection");
        ElementMatcher.Junction<TypeDescription> subtypeOfConnection =
                hasSuperType(named("java.sql.Connection")).and(not(exactlyConnection));

        AgentBuilder builder = newAgentBuilder()
                .disableClassFormatChanges()
                .with(attached ? AgentBuilder.RedefinitionStrategy.RETRANSFORMATION
                        : AgentBuilder.RedefinitionStrategy.DISABLED)
                .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .with(new ErrorListener())
                .ignore(nameStartsWith("dev.fencing.agent.")
                        .or(nameStartsWith("dev.fencing.shaded."))
                        .or(nameStartsWith("net.bytebuddy."))
                        .or(nameStartsWith("java."))
                        .or(nameStartsWith("javax.").and(not(nameStartsWith("javax.sql."))))
                        .or(nameStartsWith("jdk."))
                        .or(nameStartsWith("sun."))
                        .or(nameStartsWith("com.sun."))
                        .or(isSynthetic()))
                .or(any(), isBootstrapClassLoader())

                .type(not(isInterface()).and(hasSuperType(named("java.sql.Driver"))))
                .transform(visit(Advices.DriverConnect.class, connect.and(returns(exactlyConnection)),
                        Advices.Covariant.class, connect.and(returns(subtypeOfConnection))))

                .type(not(isInterface()).and(hasSuperType(named("javax.sql.CommonDataSource"))))
                .transform(visit(Advices.GetConnection.class, getConnection.and(returns(exactlyConnection)),
                        Advices.Covariant.class, getConnection.and(returns(subtypeOfConnection))));

        for (Map.Entry<String, String> pool : POOL_INTERNALS.entrySet()) {
            builder = builder.type(named(pool.getKey()))
                    .transform(visit(Advices.PoolInternal.class, named(pool.getValue()).and(not(isAbstract()))));
        }

        return builder
                .type(named("org.redisson.RedissonFencedLock"))
                .transform(visit(Advices.FencedLockToken.class,
                        namedOneOf("lockAndGetToken", "tryLockAndGetToken").and(returns(named("java.lang.Long")))))
                .type(named("org.redisson.RedissonBaseLock"))
                .transform(visit(Advices.Unlock.class,
                        namedOneOf("unlock", "forceUnlock", "unlockAsync").and(takesArguments(0))));
    }

    /**
     * A new builder, without Byte Buddy's "nexus" (which it would reach through
     * {@code sun.misc.Unsafe}, a warning on Java 24 and later; the agent never uses it: its
     * initialization strategy is no-op). The property is Byte Buddy's, relocated with it, and is
     * only read while the builder is made.
     */
    private static AgentBuilder newAgentBuilder() {
        String property = "net.bytebuddy.nexus.disabled";
        String previous = System.getProperty(property);
        System.setProperty(property, "true");
        try {
            return new AgentBuilder.Default();
        } finally {
            if (previous == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, previous);
            }
        }
    }

    private static AgentBuilder.Transformer visit(Class<?> advice, ElementMatcher<? super MethodDescription> methods) {
        return (builder, type, loader, module, domain) -> builder.visit(Advice.to(advice).on(methods));
    }

    /** Advice for the methods returning {@code Connection}, for covariant ones, and for their bridges. */
    private static AgentBuilder.Transformer visit(Class<?> advice, ElementMatcher<? super MethodDescription> methods,
                                                  Class<?> otherAdvice,
                                                  ElementMatcher<? super MethodDescription> otherMethods) {
        return (builder, type, loader, module, domain) -> builder
                .visit(Advice.to(advice).on(methods))
                .visit(Advice.to(otherAdvice).on(otherMethods))
                .visit(new BridgeAdvice());
    }

    /**
     * Reports classes the agent meant to instrument and could not. Their connections are not
     * intercepted, so this is logged as an error on standard error, naming the class.
     */
    private static final class ErrorListener extends AgentBuilder.Listener.Adapter {
        @Override
        public void onError(String typeName, ClassLoader classLoader, JavaModule module, boolean loaded,
                            Throwable throwable) {
            LOG.log(System.Logger.Level.ERROR, "fencing agent: could not instrument " + typeName
                    + "; its connections are NOT fenced", throwable);
        }

        @Override
        public void onTransformation(TypeDescription typeDescription, ClassLoader classLoader, JavaModule module,
                                     boolean loaded, DynamicType dynamicType) {
            LOG.log(System.Logger.Level.DEBUG, () -> "fencing agent: instrumented " + typeDescription.getName());
        }
    }

}
