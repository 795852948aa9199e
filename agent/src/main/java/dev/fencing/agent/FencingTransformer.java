package dev.fencing.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The agent's one class file transformer. For each class the JVM defines (or retransforms) it
 * reads the constant pool ({@link ClassFileFilter}) and
 * <ul>
 *   <li>reports a class that may carry {@code @Fenced} to {@link FencedTables} (it never changes
 *       such a class; the table is read from the defined class by reflection);</li>
 *   <li>hands only the classes that may be a driver, a data source, a known pool or Redisson's
 *       lock to the {@link Weaver}, which checks them properly (type hierarchy, method
 *       signatures) and weaves the advice. Reading every class the application loads into a
 *       type description would cost far more: about 0.2 ms a class.</li>
 * </ul>
 */
final class FencingTransformer implements ClassFileTransformer {

    private static final System.Logger LOG = System.getLogger("dev.fencing.agent");

    private static final String[] IGNORED = {"java/", "javax/", "jdk/", "sun/", "com/sun/",
            "dev/fencing/agent/", "dev/fencing/shaded/", "net/bytebuddy/"};

    private final FencedTables tables;
    private final Weaver weaver;
    private final Set<String> namedTargets;

    FencingTransformer(FencedTables tables, Weaver weaver, Set<String> namedTargets) {
        this.tables = tables;
        this.weaver = weaver;
        this.namedTargets = namedTargets;
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                            ProtectionDomain domain, byte[] classfile) {
        // the bootstrap loader's classes are candidates too: a driver on the boot class path (-Xbootclasspath/a)
        // is woven like any other, its advice calls the bridge on that same loader
        if (className == null || ignored(className)) {
            return null;
        }
        int flags = ClassFileFilter.scan(classfile);
        if (loader != null && redefined == null && (flags & ClassFileFilter.FENCED) != 0) {
            tables.entityDefined(loader, className.replace('/', '.'));
        }
        boolean candidate = (flags & (ClassFileFilter.CONNECT | ClassFileFilter.GET_CONNECTION | ClassFileFilter.POOLED
                | ClassFileFilter.BUILDER)) != 0
                || namedTargets.contains(className) || Weaver.poolPackages(className) != null;
        return candidate ? weaver.weave(loader, className, classfile) : null;
    }

    private static boolean ignored(String className) {
        for (String prefix : IGNORED) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * When attached to a running JVM: adds the tables of the {@code @Fenced} classes already
     * loaded, and retransforms the drivers, data sources, pools and locks already loaded, one
     * class at a time (a driver, data source or pool class that cannot be retransformed puts the
     * agent in its failed state, {@link FencedTables#instrumentationFailed}; the others are still done).
     *
     * @return the names of the classes retransformed
     */
    static List<String> applyToLoaded(Instrumentation instrumentation, FencedTables tables, Set<String> namedTargets) {
        Map<ClassLoader, Class<?>> fencedByLoader = new HashMap<>();
        List<Class<?>> retransform = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            ClassLoader loader = type.getClassLoader();
            if (type.isArray() || type.isPrimitive() || ignored(type.getName().replace('.', '/'))) {
                continue;
            }
            Class<?> fenced = loader == null ? Void.class : fencedByLoader.computeIfAbsent(loader, FencingTransformer::fencedIn);
            try {
                if (fenced != Void.class && type.isAnnotationPresent(fenced.asSubclass(java.lang.annotation.Annotation.class))) {
                    tables.addEntity(type);
                }
            } catch (RuntimeException | LinkageError e) {
                // annotations that cannot be read: not an entity in use
            }
            boolean source = !type.isInterface() && (java.sql.Driver.class.isAssignableFrom(type)
                    || javax.sql.CommonDataSource.class.isAssignableFrom(type)
                    || javax.sql.PooledConnection.class.isAssignableFrom(type)
                    || java.sql.ConnectionBuilder.class.isAssignableFrom(type)
                    || javax.sql.PooledConnectionBuilder.class.isAssignableFrom(type)
                    || javax.sql.XAConnectionBuilder.class.isAssignableFrom(type)
                    || javax.sql.ConnectionEventListener.class.isAssignableFrom(type));
            if ((source || namedTargets.contains(type.getName().replace('.', '/')) || Weaver.poolPackages(type.getName()) != null)
                    && instrumentation.isModifiableClass(type)) {
                retransform.add(type);
            }
        }
        List<String> done = new ArrayList<>();
        for (Class<?> type : retransform) {
            try {
                instrumentation.retransformClasses(type);
                done.add(type.getName());
            } catch (Exception | LinkageError e) {
                if (Weaver.makesConnections(type.getName())) {
                    tables.instrumentationFailed(type.getName(), e);
                } else {
                    LOG.log(System.Logger.Level.ERROR, "fencing agent: could not instrument the loaded class "
                            + type.getName() + "; its tokens are not put in scope", e);
                }
            }
        }
        return done;
    }

    /** The {@code @Fenced} type that {@code loader} sees; {@code Void.class} when it sees none. */
    private static Class<?> fencedIn(ClassLoader loader) {
        try {
            return Class.forName("dev.fencing.Fenced", false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return Void.class;
        }
    }
}
