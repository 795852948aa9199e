package dev.fencing;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The driver's public surface is the contract's types plus the documented extension points; every
 * other type lives in a {@code dev.fencing.internal} package, and no public signature of a public
 * type names an internal one (so that users never compile against what may change in any release).
 */
class PublicSurfaceTest {

    /** CONTRACT.md, plus the documented extension points (docs/locks.md, docs/pipeline.md, docs/epoch.md). */
    private static final Set<String> PUBLIC_TYPES = Set.of(
            "dev.fencing.Fence", "dev.fencing.Fence$Scope", "dev.fencing.Fenced", "dev.fencing.FencingConfig",
            "dev.fencing.FencingConfig$Builder", "dev.fencing.FencingConfig$Comparison", "dev.fencing.FencingConfig$Guard",
            "dev.fencing.FencingConfig$Mode", "dev.fencing.FencingConfig$ProcedureCalls", "dev.fencing.FencingConfig$ZeroRows",
            "dev.fencing.FencingException", "dev.fencing.MissingFenceException",
            "dev.fencing.StaleFenceException", "dev.fencing.UnfenceableStatementException",
            "dev.fencing.jdbc.FencingDataSource", "dev.fencing.jdbc.FencingDriver", "dev.fencing.jdbc.DatabaseGuard",
            "dev.fencing.jdbc.DatabaseGuard$Migration", "dev.fencing.jdbc.EpochTable",
            "dev.fencing.lock.FencedLocks", "dev.fencing.lock.Lease", "dev.fencing.lock.RedisFencedLocks",
            "dev.fencing.lock.JdbcFencedLocks", "dev.fencing.lock.JdbcFencedLocks$Builder",
            "dev.fencing.lock.RedisFencedLocks$Builder", "dev.fencing.lock.LockAcquisitionException",
            "dev.fencing.lock.LockAcquisitionException$Reason",
            // the lock-store extension point: a store in another module (etcd, ZooKeeper) plugs in here
            "dev.fencing.lock.spi.StoreLocks", "dev.fencing.lock.spi.StoreLocks$Builder",
            "dev.fencing.lock.spi.FencedLocksBuilder", "dev.fencing.lock.spi.LockStore",
            "dev.fencing.lock.spi.Attempt", "dev.fencing.lock.spi.Tenure", "dev.fencing.lock.spi.LeaseEvents",
            "dev.fencing.lock.spi.LockStoreException",
            // listeners for metrics and audit (the Spring starter's metrics use them)
            "dev.fencing.events.FencingListener", "dev.fencing.events.Refusal", "dev.fencing.events.Rejection",
            "dev.fencing.events.StatementEvent", "dev.fencing.events.PlanningEvent");

    @Test
    void onlyTheContractAndTheExtensionPointsArePublicOutsideInternalPackages() throws Exception {
        Set<String> outside = new TreeSet<>();
        for (Class<?> type : publicTypes()) {
            if (!type.getName().startsWith("dev.fencing.internal.")) {
                outside.add(type.getName());
            }
        }
        assertThat(outside).containsExactlyInAnyOrderElementsOf(PUBLIC_TYPES);
    }

    @Test
    void noPublicSignatureNamesAnInternalType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : publicTypes()) {
            if (type.getName().startsWith("dev.fencing.internal.")) {
                continue;
            }
            check(type.getName() + " extends", type.getGenericSuperclass(), leaks);
            for (Type implemented : type.getGenericInterfaces()) {
                check(type.getName() + " implements", implemented, leaks);
            }
            for (Method method : type.getDeclaredMethods()) {
                if (visible(method.getModifiers()) && !method.isSynthetic()) {
                    String where = type.getName() + "." + method.getName();
                    check(where + " returns", method.getGenericReturnType(), leaks);
                    for (Type parameter : method.getGenericParameterTypes()) {
                        check(where + " takes", parameter, leaks);
                    }
                    for (Type thrown : method.getGenericExceptionTypes()) {
                        check(where + " throws", thrown, leaks);
                    }
                }
            }
            for (Constructor<?> constructor : type.getDeclaredConstructors()) {
                if (visible(constructor.getModifiers())) {
                    for (Type parameter : constructor.getGenericParameterTypes()) {
                        check(type.getName() + ".<init> takes", parameter, leaks);
                    }
                }
            }
            for (Field field : type.getDeclaredFields()) {
                if (visible(field.getModifiers())) {
                    check(type.getName() + "." + field.getName(), field.getGenericType(), leaks);
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    private static void check(String where, Type type, List<String> leaks) {
        if (type != null && type.getTypeName().contains("dev.fencing.internal.")) {
            leaks.add(where + " " + type.getTypeName());
        }
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** Public top-level and public nested types of the driver's main classes. */
    private static List<Class<?>> publicTypes() throws IOException, URISyntaxException, ClassNotFoundException {
        Path classes = Path.of(FencingConfig.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<?>> types = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
                name = name.substring(0, name.length() - ".class".length());
                if (name.endsWith("package-info") || name.equals("module-info") || name.matches(".*\\$\\d.*")) {
                    continue;
                }
                Class<?> type = Class.forName(name, false, PublicSurfaceTest.class.getClassLoader());
                if (Modifier.isPublic(type.getModifiers()) && (type.getEnclosingClass() == null
                        || Modifier.isPublic(type.getEnclosingClass().getModifiers()))) {
                    types.add(type);
                }
            }
        }
        return types;
    }
}
