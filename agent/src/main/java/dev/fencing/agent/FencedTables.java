package dev.fencing.agent;

import dev.fencing.Fenced;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;

import java.lang.annotation.Annotation;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The agent's current {@link FencingConfig}: the configured keys plus the tables of the
 * {@link Fenced @Fenced} entity classes loaded so far. A configuration is immutable, so a new
 * table makes a new configuration, swapped in here; connections fenced from then on are analysed
 * with it (the driver keeps one analyzer per configuration), connections fenced earlier keep the
 * configuration they were fenced with.
 *
 * <p>Entity classes are reported while they are being defined (see {@link FencingTransformer}),
 * before they can be used; they are resolved the next time a connection is fenced, by which
 * time they are defined. An entity whose table cannot be fenced (a bad name) puts the agent in
 * a failed state: every later connection is refused with the error, rather than handed out
 * without the table's fencing.
 */
final class FencedTables {

    private static final System.Logger LOG = System.getLogger("dev.fencing.agent");

    private record Pending(WeakReference<ClassLoader> loader, String className) {
    }

    private record State(FencingConfig config, String error) {
    }

    private final Properties keys;
    /** Entity table (as written) to the entity class that named it first; guarded by this. */
    private final Map<String, String> entityTables = new LinkedHashMap<>();
    private final Queue<Pending> pending = new ConcurrentLinkedQueue<>();
    private volatile State state;

    FencedTables(Properties keys) {
        this.keys = keys;
        this.state = build();
    }

    /**
     * The configuration to fence a new connection with; null while no table is fenced at all
     * (nothing to enforce yet).
     *
     * @throws FencingException when an entity's table could not be added
     */
    FencingConfig current() throws FencingException {
        if (!pending.isEmpty()) {
            resolvePending();
        }
        State current = state;
        if (current.error != null) {
            throw new FencingException("fencing agent: " + current.error);
        }
        return current.config;
    }

    /** An entity class that may carry {@code @Fenced} is being defined by {@code loader}. */
    void entityDefined(ClassLoader loader, String className) {
        pending.add(new Pending(new WeakReference<>(loader), className));
    }

    /** Adds the table of an entity class now (classes already loaded when the agent attaches). */
    synchronized void addEntity(Class<?> entity) {
        if (state.error != null) {
            return;
        }
        String table;
        try {
            table = tableOf(entity);
        } catch (IllegalArgumentException e) {
            state = new State(null, e.getMessage());
            LOG.log(System.Logger.Level.ERROR, "fencing agent: " + e.getMessage()
                    + "; every connection is refused from now on");
            return;
        }
        if (table == null || entityTables.containsKey(table)) {
            return;
        }
        entityTables.put(table, entity.getName());
        State next = build();
        state = next;
        if (next.error == null) {
            LOG.log(System.Logger.Level.INFO, () -> "fencing agent: fencing table " + table + " (@Fenced on "
                    + entity.getName() + "); connections opened from now on fence it");
        } else {
            LOG.log(System.Logger.Level.ERROR, "fencing agent: " + next.error + "; every connection is refused from now on");
        }
    }

    /**
     * A class that makes or hands out connections (a driver, data source, pooled connection or
     * pool) could not be instrumented: its connections would reach the application without the
     * agent seeing them, so that it could neither fence nor refuse them. Every connection the
     * agent sees from now on is refused, with the class named, rather than fence some while
     * others go out unfenced.
     */
    synchronized void instrumentationFailed(String className, Throwable cause) {
        String error = "could not instrument " + className + " (" + cause + "), whose connections could then be "
                + "neither fenced nor refused; every connection is refused instead. Report this with the class's "
                + "library and version";
        LOG.log(System.Logger.Level.ERROR, "fencing agent: " + error, cause);
        if (state.error == null) {
            state = new State(null, error);
        }
    }

    /** The tables fenced now, for logging. */
    synchronized List<String> describe() {
        List<String> tables = new ArrayList<>();
        if (state.config != null) {
            state.config.tables().forEach(t -> tables.add(t.toString()));
        }
        return tables;
    }

    private void resolvePending() {
        for (Pending next = pending.poll(); next != null; next = pending.poll()) {
            ClassLoader loader = next.loader.get();
            if (loader == null) {
                continue;
            }
            Class<?> entity;
            try {
                entity = Class.forName(next.className, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                // defined with errors: the application cannot use it either
                LOG.log(System.Logger.Level.DEBUG, "fencing agent: {0} did not load: {1}", next.className, e);
                continue;
            }
            addEntity(entity);
        }
    }

    private synchronized State build() {
        FencingConfig.Builder builder = FencingConfig.builder();
        for (String key : keys.stringPropertyNames()) {
            builder.set(key, keys.getProperty(key));
        }
        for (Map.Entry<String, String> entry : entityTables.entrySet()) {
            try {
                builder.table(entry.getKey());
            } catch (IllegalArgumentException e) {
                return new State(null, "@Fenced on " + entry.getValue() + ": " + e.getMessage());
            }
        }
        if (!namesTables(keys) && entityTables.isEmpty()) {
            return new State(null, null);
        }
        return new State(builder.build(), null);
    }

    private static boolean namesTables(Properties keys) {
        for (String key : keys.stringPropertyNames()) {
            if (key.equals(FencingConfig.TABLES) ? !keys.getProperty(key).isBlank() : key.startsWith("fencing.table.")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The table of a class annotated with {@code @Fenced}, as {@link FencingConfig.Builder#fencedEntity}
     * reads it; null when the class is not annotated at class level (the scanner only saw the
     * annotation's name somewhere in the class file).
     *
     * @throws IllegalArgumentException when it is annotated but names no valid table
     */
    static String tableOf(Class<?> entity) {
        if (entity.isAnnotationPresent(Fenced.class)) {
            return FencingConfig.builder().fencedEntity(entity).build().tables().iterator().next().toString();
        }
        // annotated with another class loader's copy of @Fenced: read it by name
        for (Annotation annotation : entity.getDeclaredAnnotations()) {
            if (annotation.annotationType().getName().equals(Fenced.class.getName())) {
                throw new IllegalArgumentException(entity.getName() + " is annotated with a copy of @"
                        + Fenced.class.getName() + " from another class loader ("
                        + annotation.annotationType().getClassLoader() + "); the agent reads only its own");
            }
        }
        return null;
    }
}
