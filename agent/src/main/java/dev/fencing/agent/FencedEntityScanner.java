package dev.fencing.agent;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.HashMap;
import java.util.Map;

/**
 * Sees {@code @dev.fencing.Fenced} entity classes as they are defined and reports them to
 * {@link FencedTables}. It never changes a class: it only looks for the annotation's descriptor
 * in the class file's bytes (a class annotated with it must name it in its constant pool), and
 * {@link FencedTables} then checks the defined class by reflection.
 */
final class FencedEntityScanner implements ClassFileTransformer {

    private static final byte[] DESCRIPTOR = "Ldev/fencing/Fenced;".getBytes(StandardCharsets.US_ASCII);

    private final FencedTables tables;

    FencedEntityScanner(FencedTables tables) {
        this.tables = tables;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined,
                            ProtectionDomain domain, byte[] classfile) {
        if (loader != null && className != null && redefined == null && mentionsFenced(classfile)) {
            tables.entityDefined(loader, className.replace('/', '.'));
        }
        return null;
    }

    /** Adds the tables of the {@code @Fenced} classes that were loaded before the agent attached. */
    static void scanLoaded(Instrumentation instrumentation, FencedTables tables) {
        Map<ClassLoader, Class<?>> annotationByLoader = new HashMap<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            ClassLoader loader = type.getClassLoader();
            if (loader == null || type.isAnnotation() || type.isArray() || type.isPrimitive()) {
                continue;
            }
            Class<?> fenced = annotationByLoader.computeIfAbsent(loader, FencedEntityScanner::fencedIn);
            if (fenced == Void.class) {
                continue;
            }
            try {
                @SuppressWarnings("unchecked")
                Class<? extends java.lang.annotation.Annotation> annotation =
                        (Class<? extends java.lang.annotation.Annotation>) fenced;
                if (type.isAnnotationPresent(annotation)) {
                    tables.addEntity(type);
                }
            } catch (RuntimeException | LinkageError e) {
                // a class whose annotations cannot be read cannot be an entity in use either
            }
        }
    }

    /** The {@code @Fenced} type that {@code loader} sees; {@code Void.class} when it sees none. */
    private static Class<?> fencedIn(ClassLoader loader) {
        try {
            return Class.forName("dev.fencing.Fenced", false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return Void.class;
        }
    }

    static boolean mentionsFenced(byte[] classfile) {
        if (classfile == null) {
            return false;
        }
        int last = classfile.length - DESCRIPTOR.length;
        outer:
        for (int i = 0; i <= last; i++) {
            if (classfile[i] != 'L') {
                continue;
            }
            for (int j = 1; j < DESCRIPTOR.length; j++) {
                if (classfile[i + j] != DESCRIPTOR[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
