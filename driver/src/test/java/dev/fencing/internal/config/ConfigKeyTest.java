package dev.fencing.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencingConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The key registry is the one list: the README, the enums and the builder agree with it. */
class ConfigKeyTest {

    private static final Pattern ROW = Pattern.compile("^\\| `(fencing\\.[^`]+)` \\| ([^|]+) \\|");

    @Test
    void theReadmeConfigurationTableListsExactlyTheRegisteredKeysWithTheirDefaults() throws IOException {
        Map<String, String> documented = readmeConfigurationTable();
        Map<String, String> registered = new LinkedHashMap<>();
        for (ConfigKey key : ConfigKey.values()) {
            registered.put(key.key(), key.defaultValue());
        }
        assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(registered.keySet());
        registered.forEach((key, defaultValue) -> {
            String cell = documented.get(key);
            if (defaultValue != null) {
                assertThat(cell).as("README default of %s", key).isEqualTo("`" + defaultValue + "`");
            } else if (ConfigKey.find(key.replace("<table>", "t")).required()) {
                assertThat(cell).as("README default of %s", key).isEqualTo("(required)");
            } else {
                assertThat(cell).as("README default of %s", key).startsWith("(none");
            }
        });
    }

    @Test
    void everyChoiceIsAValueOfTheConfigurationsEnum() {
        assertThat(ConfigKey.COMPARISON.choices()).isEqualTo(names(FencingConfig.Comparison.values()));
        assertThat(ConfigKey.ON_ZERO_ROWS.choices()).isEqualTo(names(FencingConfig.ZeroRows.values()));
        assertThat(ConfigKey.MODE.choices()).isEqualTo(names(FencingConfig.Mode.values()));
        assertThat(ConfigKey.TABLE_MODE.choices()).isEqualTo(names(FencingConfig.Mode.values()));
        assertThat(ConfigKey.PROCEDURE_CALLS.choices()).isEqualTo(names(FencingConfig.ProcedureCalls.values()));
        assertThat(ConfigKey.DATABASE_GUARD.choices()).isEqualTo(names(FencingConfig.Guard.values()));
    }

    @Test
    void everyKeyIsAcceptedByTheBuilderInItsDefaultOrFirstChoice() {
        for (ConfigKey key : ConfigKey.values()) {
            Properties properties = new Properties();
            properties.setProperty("fencing.tables", "orders");
            String spelled = key.key().replace("<table>", "payments");
            String value = key.defaultValue() != null ? key.defaultValue()
                    : !key.choices().isEmpty() ? key.choices().get(0) : key == ConfigKey.TABLES ? "orders"
                    : key.kind() == ConfigKey.Kind.IDENTIFIER_LIST ? "billing, archive" : "x.properties";
            properties.setProperty(spelled, value);
            assertThat(FencingConfig.fromProperties(properties)).as(spelled).isNotNull();
        }
    }

    @Test
    void findsTheTableModePatternAndNothingElse() {
        assertThat(ConfigKey.find("fencing.table.orders.mode")).isEqualTo(ConfigKey.TABLE_MODE);
        assertThat(ConfigKey.tableOfModeKey("fencing.table.billing.payments.mode")).isEqualTo("billing.payments");
        assertThat(ConfigKey.find("fencing.table..mode")).isNull();
        assertThat(ConfigKey.find("fencing.colum")).isNull();
    }

    @Test
    void anUnknownKeyIsRefusedNamingEveryKnownKey() {
        String known = String.join(", ", Arrays.stream(ConfigKey.values()).map(ConfigKey::key).toList());
        assertThatThrownBy(() -> ConfigKey.of("fencing.colum"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown fencing configuration key 'fencing.colum'; known keys: " + known);
    }

    @Test
    void badValuesNameTheKeyAndWhatIsAllowed() {
        assertThatThrownBy(() -> ConfigKey.PLAN_CACHE_SIZE.check("8"))
                .hasMessage("invalid value '8' for fencing.plan-cache-size; allowed: a whole number from 16 to 1000000");
        assertThatThrownBy(() -> ConfigKey.COMPARISON.check("newest"))
                .hasMessage("invalid value 'newest' for fencing.comparison; allowed: one of newer-or-equal, strictly-newer");
        assertThatThrownBy(() -> FencingConfig.builder().column("last fence"))
                .hasMessageContaining("fencing.column");
        assertThat(ConfigKey.MODE.check(" EPOCH ")).isEqualTo("epoch");
    }

    private static List<String> names(Enum<?>[] values) {
        return Arrays.stream(values).map(Object::toString).toList();
    }

    /** The rows of the table under the README's "## Configuration" heading: key to default cell. */
    private static Map<String, String> readmeConfigurationTable() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("../README.md"));
        int start = lines.indexOf("## Configuration");
        assertThat(start).as("README has a ## Configuration section").isNotNegative();
        Map<String, String> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : lines.subList(start + 1, lines.size())) {
            if (line.startsWith("|")) {
                inTable = true;
                Matcher row = ROW.matcher(line);
                if (row.find()) {
                    rows.put(row.group(1), row.group(2).trim());
                }
            } else if (inTable) {
                break;
            }
        }
        return rows;
    }
}
