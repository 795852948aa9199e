package dev.fencing.agent;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.TypeResolutionStrategy;
import net.bytebuddy.dynamic.scaffold.MethodGraph;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.none;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Weaves the advice into one class file, with Byte Buddy's type descriptions and advice but not
 * its agent builder (whose set-up costs start-up time for what the agent does not need): the
 * class file is read into a type pool, checked, and rewritten in place; it never gains a field
 * or method, so the same weaving also serves retransformation (attach).
 *
 * <ul>
 *   <li>{@code connect(String, Properties)} of a {@code java.sql.Driver} and
 *       {@code getConnection()} / {@code getConnection(String, String)} of a
 *       {@code javax.sql.CommonDataSource} (pgjdbc declares them in a base class that is not a
 *       {@code DataSource}; Tomcat JDBC in {@code DataSourceProxy}, named in
 *       {@link #NAMED_DATA_SOURCES}) or of a {@code javax.sql.PooledConnection} (the logical
 *       connection of an {@code XAConnection}): {@link Advices.DriverConnect} /
 *       {@link Advices.GetConnection} when declared to return {@code java.sql.Connection},
 *       {@link Advices.Covariant} when declared to return a subtype, and {@link BridgeAdvice} for
 *       the bridge over such a method;</li>
 *   <li>a driver's static {@code connect(..)} (MariaDB's {@code Driver.connect(Configuration)}):
 *       {@link Advices.StaticConnect} / {@link Advices.StaticCovariant};</li>
 *   <li>{@code getXAConnection} / {@code getPooledConnection} of a data source:
 *       {@link Advices.PooledFactory} (the connection opened inside is the driver's own);</li>
 *   <li>the connection-making methods of a known pool ({@link #POOL_INTERNALS}) and
 *       {@code connectionClosed} / {@code connectionErrorOccurred} of every
 *       {@code javax.sql.ConnectionEventListener}: {@link Advices.PoolInternal};</li>
 *   <li>in a known pool's classes, its calls through its own interfaces that pass a connection
 *       (to the application's callbacks): {@link CallbackSites};</li>
 *   <li>Redisson's {@code RedissonFencedLock} token methods and {@code RedissonBaseLock} release
 *       methods, matched by name (no Redisson at compile time).</li>
 * </ul>
 */
final class Weaver {

    private static final System.Logger LOG = System.getLogger("dev.fencing.agent");

    /**
     * Pool classes and their methods that open the connections the pool keeps (on its own
     * threads, too): calls inside them are not the application's. Pools not listed still get
     * each connection fenced once (a pool's proxy over a fenced connection is recognised through
     * {@code isWrapperFor}); only the fenced layer then sits under the pool's proxy.
     */
    static final Map<String, Set<String>> POOL_INTERNALS = Map.of(
            "com.zaxxer.hikari.pool.PoolBase", Set.of("newConnection"),
            "org.apache.commons.dbcp2.PoolableConnectionFactory", Set.of("makeObject"),
            "org.apache.tomcat.jdbc.pool.PooledConnection", Set.of("connect"),
            "io.agroal.pool.ConnectionFactory", Set.of("createConnection"),
            // Agroal takes the connection of its XAConnection in ConnectionHandler's constructor, called here
            "io.agroal.pool.ConnectionPool$CreateConnectionTask", Set.of("call"),
            "io.agroal.pool.Poolless", Set.of("createConnection"),
            // Vibur opens the connections it keeps (on its own threads too) in its ConnectionFactory
            "org.vibur.dbcp.pool.ConnectionFactory", Set.of("create"),
            // MariaDB's own pool (MariaDbPoolDataSource, Pools.retrievePool): its appender thread opens
            // connections with the static Driver.connect(Configuration), and it reaches the physical
            // connection of its pooled ones with their covariant getConnection() (validation, close)
            "org.mariadb.jdbc.pool.Pool", Set.of("addConnection", "getPoolConnection", "getIdleConnection",
                    "removeIdleTimeoutConnection", "close", "closeAll", "testGetConnectionIdleThreadIds"));

    /**
     * The packages of the pools the agent knows, one list per pool: a pool's public classes hand
     * out connections through methods the agent does not list by name ({@code HikariPool},
     * Tomcat's {@code ConnectionPool} and async borrows, a generic pool's {@code borrowObject}).
     * Every public instance method of a class here that may return a connection is woven with
     * {@link Advices.Handout}: called from outside the pool's own classes (and outside every
     * intercepted call), what it returns is fenced or refused. Classes that are themselves JDBC
     * objects (the pool's proxies) are left out: the fenced layer sits over them.
     */
    static final List<List<String>> POOL_PACKAGES = List.of(
            List.of("com.zaxxer.hikari."),
            List.of("org.apache.tomcat.jdbc.pool."),
            List.of("org.apache.commons.dbcp2.", "org.apache.commons.pool2."),
            List.of("com.mchange.v2.c3p0.", "com.mchange.v2.resourcepool."),
            List.of("io.agroal."),
            List.of("org.vibur.dbcp.", "org.vibur.objectpool."),
            List.of("oracle.ucp."));

    /** The packages of the pool {@code className} (binary or internal name) belongs to, else null. */
    static List<String> poolPackages(String className) {
        String name = className.replace('/', '.');
        for (List<String> pool : POOL_PACKAGES) {
            for (String prefix : pool) {
                if (name.startsWith(prefix)) {
                    return pool;
                }
            }
        }
        return null;
    }

    /** Whether {@code caller} is a class of the same pool as {@code poolClass}. */
    static boolean samePool(String poolClass, String caller) {
        List<String> pool = poolPackages(poolClass);
        if (pool == null) {
            return false;
        }
        for (String prefix : pool) {
            if (caller.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The classes whose {@code PooledConnection.getConnection()} is woven (binary names): the
     * {@code XAConnection} / {@code PooledConnection} a data source hands out is accepted only
     * when its {@code getConnection()} is one of these, else the data source's call is refused.
     */
    static final Set<String> WOVEN_POOLED_CONNECTIONS = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Classes that hand out the connections of a {@code javax.sql.DataSource} subclass without
     * being one themselves: Tomcat JDBC declares {@code getConnection()} (and
     * {@code getPooledConnection()}) in {@code DataSourceProxy}, which its {@code DataSource}
     * inherits. Woven as data sources.
     */
    static final Set<String> NAMED_DATA_SOURCES = Set.of("org.apache.tomcat.jdbc.pool.DataSourceProxy");

    static final String REDISSON_FENCED_LOCK = "org.redisson.RedissonFencedLock";
    static final String REDISSON_BASE_LOCK = "org.redisson.RedissonBaseLock";

    private final ThreadLocal<Boolean> weaving = new ThreadLocal<>();
    private final FencedTables failures;

    /** @param failures told when a class whose connections must be fenced cannot be instrumented */
    Weaver(FencedTables failures) {
        this.failures = failures;
    }

    /** True for the classes whose failed instrumentation would let connections out unfenced (not Redisson's locks). */
    static boolean makesConnections(String name) {
        return !name.equals(REDISSON_FENCED_LOCK) && !name.equals(REDISSON_BASE_LOCK);
    }

    /**
     * Byte Buddy and the matchers, made when the first class is woven rather than at start-up:
     * loading Byte Buddy is most of what the agent costs, and an application pays it only when
     * it loads a JDBC driver, data source or lock.
     */
    private static final class Lazy {
        static final ElementMatcher.Junction<MethodDescription> CONNECT = named("connect")
                .and(takesArguments(String.class, Properties.class)).and(not(isAbstract())).and(not(isStatic()));
        static final ElementMatcher.Junction<MethodDescription> GET_CONNECTION = named("getConnection")
                .and(takesArguments(0).or(takesArguments(String.class, String.class))).and(not(isAbstract()))
                .and(not(isStatic()));
        static final ElementMatcher.Junction<MethodDescription> BUILD = named("build").and(takesArguments(0))
                .and(not(isAbstract())).and(not(isStatic()));
        static final ElementMatcher.Junction<MethodDescription> STATIC_CONNECT = named("connect").and(isStatic());
        static final ElementMatcher.Junction<MethodDescription> POOLED_FACTORY =
                namedOneOf("getXAConnection", "getPooledConnection")
                        .and(takesArguments(0).or(takesArguments(String.class, String.class))).and(not(isAbstract()))
                        .and(not(isStatic()));
        static final ElementMatcher.Junction<TypeDescription> CONNECTION = named("java.sql.Connection");
        /** A pool's method that may hand out a connection: by its declared return type, or a generic pool's borrow. */
        static final ElementMatcher.Junction<MethodDescription> HANDOUT = isPublic().and(not(isStatic()))
                .and(not(isAbstract())).and(not(isBridge())).and(not(isConstructor()))
                .and(returns(hasSuperType(namedOneOf("java.sql.Connection", "javax.sql.PooledConnection",
                        "java.util.concurrent.Future"))).or(named("borrowObject")));
        /** The JDBC objects of a pool (its proxies): their connection-returning methods sit under the fenced layer. */
        static final ElementMatcher.Junction<TypeDescription> JDBC_OBJECT = hasSuperType(namedOneOf(
                "java.sql.Connection", "java.sql.Statement", "java.sql.DatabaseMetaData", "java.sql.ResultSet"));
        static final ElementMatcher.Junction<TypeDescription> CONNECTION_SUBTYPE =
                hasSuperType(named("java.sql.Connection")).and(not(CONNECTION));
        static final ByteBuddy BYTE_BUDDY = new ByteBuddy()
                .with(TypeValidation.DISABLED)
                .with(Implementation.Context.Disabled.Factory.INSTANCE)
                .with(MethodGraph.Compiler.ForDeclaredMethods.INSTANCE);
    }

    /** The internal names of the classes woven by name: pool internals and Redisson's locks. */
    static Set<String> namedTargets() {
        List<String> names = new ArrayList<>();
        POOL_INTERNALS.keySet().forEach(name -> names.add(name.replace('.', '/')));
        NAMED_DATA_SOURCES.forEach(name -> names.add(name.replace('.', '/')));
        names.add(REDISSON_FENCED_LOCK.replace('.', '/'));
        names.add(REDISSON_BASE_LOCK.replace('.', '/'));
        return Set.copyOf(names);
    }

    /**
     * The class file with the advice woven in, or null when the class is none of the above (or
     * cannot be woven: then logged as an error, since its connections are not intercepted).
     */
    byte[] weave(ClassLoader loader, String internalName, byte[] classfile) {
        if (weaving.get() != null) {
            return null; // a class loaded while weaving another: never one of ours to weave
        }
        weaving.set(Boolean.TRUE);
        String name = internalName.replace('/', '.');
        try {
            ClassFileLocator locator = new ClassFileLocator.Compound(ClassFileLocator.Simple.of(name, classfile),
                    ClassFileLocator.ForClassLoader.of(loader));
            TypePool pool = new TypePool.Default.WithLazyResolution(new TypePool.CacheProvider.Simple(), locator,
                    TypePool.Default.ReaderMode.FAST);
            List<AsmVisitorWrapper> advice;
            TypeDescription type;
            try {
                type = pool.describe(name).resolve();
                advice = adviceFor(type);
                if (poolPackages(name) != null && CallbackSites.present(classfile)) {
                    advice.add(new CallbackSites()); // the pool's calls into the application's callbacks
                }
            } catch (RuntimeException | LinkageError e) {
                // a super type whose class file cannot be read: the JVM cannot define the class either, unless
                // its loader hides class files. A class that names a JDBC connection type in its constant pool
                // may be a driver or data source whose connections would pass the agent: refuse them all
                if (namesConnectionType(classfile)) {
                    failures.instrumentationFailed(name, e);
                } else {
                    LOG.log(System.Logger.Level.WARNING, "fencing agent: cannot read the type hierarchy of " + name
                            + " (it names no JDBC connection type, so it is taken for no driver or data source): " + e);
                }
                return null;
            }
            if (advice.isEmpty()) {
                return null;
            }
            DynamicType.Builder<?> builder = Lazy.BYTE_BUDDY.redefine(type, locator);
            for (AsmVisitorWrapper wrapper : advice) {
                builder = builder.visit(wrapper);
            }
            try {
                return builder.make(TypeResolutionStrategy.Disabled.INSTANCE, pool).getBytes();
            } catch (RuntimeException | LinkageError e) {
                // a driver, data source or pool class that stays as it is would hand out connections the
                // agent never sees, and so can neither fence nor refuse: refuse every connection instead
                if (makesConnections(name)) {
                    failures.instrumentationFailed(name, e);
                } else {
                    LOG.log(System.Logger.Level.ERROR, "fencing agent: could not instrument " + name
                            + "; its tokens are not put in scope", e);
                }
                return null;
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.log(System.Logger.Level.ERROR, "fencing agent: could not instrument " + name
                    + "; connections it makes are NOT fenced", e);
            return null;
        } finally {
            weaving.remove();
        }
    }

    private static final byte[][] CONNECTION_TYPES = {
            "Ljava/sql/Connection;".getBytes(StandardCharsets.US_ASCII),
            "Ljavax/sql/PooledConnection;".getBytes(StandardCharsets.US_ASCII),
            "Ljavax/sql/XAConnection;".getBytes(StandardCharsets.US_ASCII)};

    /** Whether a descriptor in the class file names {@code java.sql.Connection} or a pooled / XA connection. */
    static boolean namesConnectionType(byte[] classfile) {
        for (byte[] type : CONNECTION_TYPES) {
            outer:
            for (int at = 0; at <= classfile.length - type.length; at++) {
                for (int i = 0; i < type.length; i++) {
                    if (classfile[at + i] != type[i]) {
                        continue outer;
                    }
                }
                return true;
            }
        }
        return false;
    }

    private static List<AsmVisitorWrapper> adviceFor(TypeDescription type) {
        List<AsmVisitorWrapper> advice = new ArrayList<>();
        if (type.isInterface()) {
            return advice;
        }
        String name = type.getName();
        ElementMatcher.Junction<MethodDescription> advised = none(); // the methods given an advice below
        boolean bridges = false; // the bridge methods over covariant connection-returning methods, instrumented once
        if (declaresMethod(named("connect")).matches(type) && hasSuperType(named("java.sql.Driver")).matches(type)) {
            advice.add(Advice.to(Advices.DriverConnect.class).on(Lazy.CONNECT.and(returns(Lazy.CONNECTION))));
            advice.add(Advice.to(Advices.Covariant.class).on(Lazy.CONNECT.and(returns(Lazy.CONNECTION_SUBTYPE))));
            // MariaDB's public static Driver.connect(Configuration): another way in to the same connections
            advice.add(Advice.to(Advices.StaticConnect.class).on(Lazy.STATIC_CONNECT.and(returns(Lazy.CONNECTION))));
            advice.add(Advice.to(Advices.StaticCovariant.class).on(Lazy.STATIC_CONNECT.and(returns(Lazy.CONNECTION_SUBTYPE))));
            advised = advised.or(Lazy.CONNECT).or(Lazy.STATIC_CONNECT);
            bridges = true;
        } else {
            boolean dataSource = hasSuperType(named("javax.sql.CommonDataSource")).matches(type)
                    || NAMED_DATA_SOURCES.contains(name);
            // the logical connections of XAConnection / PooledConnection (MariaDB's, H2's, pgjdbc's)
            boolean pooledConnection = hasSuperType(named("javax.sql.PooledConnection")).matches(type);
            if ((dataSource || pooledConnection) && declaresMethod(Lazy.GET_CONNECTION).matches(type)) {
                advice.add(Advice.to(Advices.GetConnection.class).on(Lazy.GET_CONNECTION.and(returns(Lazy.CONNECTION))));
                advice.add(Advice.to(Advices.Covariant.class).on(Lazy.GET_CONNECTION.and(returns(Lazy.CONNECTION_SUBTYPE))));
                advised = advised.or(Lazy.GET_CONNECTION);
                bridges = true;
                if (pooledConnection) {
                    WOVEN_POOLED_CONNECTIONS.add(name);
                }
            }
            if (dataSource && declaresMethod(Lazy.POOLED_FACTORY).matches(type)) {
                advice.add(Advice.to(Advices.PooledFactory.class).on(Lazy.POOLED_FACTORY));
                advised = advised.or(Lazy.POOLED_FACTORY);
            }
        }
        if (hasSuperType(named("java.sql.ConnectionBuilder")).matches(type)
                && declaresMethod(Lazy.BUILD).matches(type)) {
            // JDBC 4.3: dataSource.createConnectionBuilder().user(..).build()
            advice.add(Advice.to(Advices.GetConnection.class).on(Lazy.BUILD.and(returns(Lazy.CONNECTION))));
            advice.add(Advice.to(Advices.Covariant.class).on(Lazy.BUILD.and(returns(Lazy.CONNECTION_SUBTYPE))));
            advised = advised.or(Lazy.BUILD);
            bridges = true;
        }
        if (hasSuperType(namedOneOf("javax.sql.PooledConnectionBuilder", "javax.sql.XAConnectionBuilder")).matches(type)
                && declaresMethod(Lazy.BUILD).matches(type)) {
            advice.add(Advice.to(Advices.PooledFactory.class).on(Lazy.BUILD));
            advised = advised.or(Lazy.BUILD);
        }
        if (bridges) {
            advice.add(new BridgeAdvice());
        }
        if (hasSuperType(named("javax.sql.ConnectionEventListener")).matches(type)) {
            // a pool's listener on its pooled connections (MariaDB's Pool, c3p0, application servers) takes
            // the physical connection back with getConnection() when the application closes its handle
            advice.add(Advice.to(Advices.PoolInternal.class).on(namedOneOf("connectionClosed", "connectionErrorOccurred")
                    .and(takesArguments(1)).and(not(isAbstract()))));
        }
        Set<String> poolMethods = POOL_INTERNALS.get(name);
        if (poolMethods != null) {
            advice.add(Advice.to(Advices.PoolInternal.class).on(namedOneOf(poolMethods.toArray(String[]::new))
                    .and(not(isAbstract()))));
            advised = advised.or(namedOneOf(poolMethods.toArray(String[]::new)));
        }
        if (poolPackages(name) != null && !Lazy.JDBC_OBJECT.matches(type)) {
            ElementMatcher.Junction<MethodDescription> handouts = Lazy.HANDOUT.and(not(advised));
            if (!type.getDeclaredMethods().filter(handouts).isEmpty()) {
                advice.add(Advice.to(Advices.Handout.class).on(handouts));
            }
        }
        if (name.equals(REDISSON_FENCED_LOCK)) {
            advice.add(Advice.to(Advices.FencedLockToken.class).on(
                    namedOneOf("lockAndGetToken", "tryLockAndGetToken").and(returns(named("java.lang.Long")))));
        }
        if (name.equals(REDISSON_BASE_LOCK)) {
            advice.add(Advice.to(Advices.Unlock.class).on(
                    namedOneOf("unlock", "forceUnlock", "unlockAsync").and(takesArguments(0))));
        }
        return advice;
    }
}
