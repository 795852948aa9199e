package dev.fencing;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No static switch in the driver's internals can turn a check off: a boolean that any code in the
 * process may flip would turn it off for every analyzer and connection at once. What tests need
 * (the rewrite off, the splice proof's cross-check) is passed in when an analyzer or a connection
 * context is made ({@code AnalyzerOptions}).
 */
class NoStaticSwitchTest {

    @Test
    void noInternalClassHasAMutableStaticBoolean() throws Exception {
        Path classes = Path.of(FencingConfig.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> switches = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes.resolve("dev/fencing/internal"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
                Class<?> type = Class.forName(name.substring(0, name.length() - ".class".length()), false,
                        NoStaticSwitchTest.class.getClassLoader());
                for (Field field : type.getDeclaredFields()) {
                    int modifiers = field.getModifiers();
                    if (Modifier.isStatic(modifiers) && !Modifier.isFinal(modifiers) && field.getType() == boolean.class) {
                        switches.add(type.getName() + "." + field.getName());
                    }
                }
            }
        }
        assertThat(switches).as("mutable static booleans in internal classes").isEmpty();
    }
}
