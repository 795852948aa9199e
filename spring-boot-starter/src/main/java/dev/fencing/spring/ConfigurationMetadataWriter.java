package dev.fencing.spring;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Writes {@code META-INF/spring-configuration-metadata.json} from {@link FencingKeys}, so that IDEs
 * complete and document every {@code fencing.*} key. The build runs {@link #main} after compiling
 * (exec-maven-plugin, phase {@code process-classes}) with the classes directory as its argument.
 * Public only so that the build can call it; not an API.
 */
public final class ConfigurationMetadataWriter {

    private static final Set<String> LITERAL_TYPES = Set.of("java.lang.Boolean", "java.lang.Integer", "java.lang.Long");

    private ConfigurationMetadataWriter() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: ConfigurationMetadataWriter <classes directory>");
        }
        Path file = Path.of(args[0], "META-INF", "spring-configuration-metadata.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, json(FencingKeys.all()), StandardCharsets.UTF_8);
    }

    static String json(List<FencingKeys.Key> keys) {
        StringBuilder out = new StringBuilder("{\n  \"groups\": [\n");
        out.append("    {\"name\": \"fencing\", \"description\": \"fencing-jdbc: fenced tables, the fence check and the lock store.\"},\n");
        out.append("    {\"name\": \"fencing.lock\", \"description\": \"The FencedLocks bean and @FencedLock.\"}\n");
        out.append("  ],\n  \"properties\": [\n");
        for (int i = 0; i < keys.size(); i++) {
            FencingKeys.Key key = keys.get(i);
            out.append("    {\"name\": ").append(string(key.name()))
                    .append(", \"type\": ").append(string(key.type()))
                    .append(", \"description\": ").append(string(key.description()));
            if (key.defaultValue() != null) {
                out.append(", \"defaultValue\": ").append(LITERAL_TYPES.contains(key.type())
                        ? key.defaultValue() : string(key.defaultValue()));
            }
            out.append(i + 1 < keys.size() ? "},\n" : "}\n");
        }
        out.append("  ],\n  \"hints\": [\n");
        List<FencingKeys.Key> enumerated = keys.stream().filter(k -> !k.values().isEmpty()).toList();
        for (int i = 0; i < enumerated.size(); i++) {
            FencingKeys.Key key = enumerated.get(i);
            // the values of a map's entries are hinted as <map>.values
            out.append("    {\"name\": ").append(string(key.map() ? key.name() + ".values" : key.name()))
                    .append(", \"values\": [");
            for (int v = 0; v < key.values().size(); v++) {
                out.append(v > 0 ? ", " : "").append("{\"value\": ").append(string(key.values().get(v))).append('}');
            }
            out.append(i + 1 < enumerated.size() ? "]},\n" : "]}\n");
        }
        return out.append("  ]\n}\n").toString();
    }

    private static String string(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
