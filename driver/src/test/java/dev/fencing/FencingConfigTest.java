package dev.fencing;

import dev.fencing.internal.config.TableName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FencingConfigTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        FencingConfig config = FencingConfig.builder().tables("orders").build();

        assertThat(config.column()).isEqualTo("last_fence");
        assertThat(config.comparison()).isEqualTo(FencingConfig.Comparison.NEWER_OR_EQUAL);
        assertThat(config.onZeroRows()).isEqualTo(FencingConfig.ZeroRows.DIAGNOSE);
        assertThat(config.mode()).isEqualTo(FencingConfig.Mode.ROW);
        assertThat(config.procedureCalls()).isEqualTo(FencingConfig.ProcedureCalls.ALLOW);
    }

    @Test
    void aPropertiesFileIsReadAndRoundTrips(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fencing.properties");
        Files.writeString(file, "fencing.tables = orders, \"Billing\".payments\nfencing.column=fence\n"
                + "fencing.comparison=strictly-newer\nfencing.on-zero-rows=raise\nunrelated=1\n");

        FencingConfig config = FencingConfig.load(file);

        assertThat(config.tables()).containsExactly("orders", "billing.payments");
        assertThat(config.column()).isEqualTo("fence");
        assertThat(config.comparison()).isEqualTo(FencingConfig.Comparison.STRICTLY_NEWER);
        assertThat(config.onZeroRows()).isEqualTo(FencingConfig.ZeroRows.RAISE);
        assertThat(FencingConfig.fromProperties(config.toProperties())).isEqualTo(config);
    }

    @Test
    void everySettingOfTheRegistryIsWrittenByToPropertiesAndReadBack() {
        FencingConfig config = FencingConfig.builder().tables("orders", "billing.payments").column("fence")
                .comparison(FencingConfig.Comparison.STRICTLY_NEWER).onZeroRows(FencingConfig.ZeroRows.RAISE)
                .mode(FencingConfig.Mode.EPOCH).tableMode("audit", FencingConfig.Mode.ROW).epochTable("guards")
                .procedureCalls(FencingConfig.ProcedureCalls.REJECT).planCacheSize(99).parseTimeoutMillis(77)
                .databaseGuard(FencingConfig.Guard.REQUIRED).guardSchemas("Archive", "reporting").build();

        java.util.Properties written = config.toProperties();

        for (dev.fencing.internal.config.ConfigKey key : dev.fencing.internal.config.ConfigKey.values()) {
            if (key == dev.fencing.internal.config.ConfigKey.CONFIG) {
                assertThat(written).as("where settings came from is not a setting").doesNotContainKey(key.key());
            } else if (key == dev.fencing.internal.config.ConfigKey.TABLE_MODE) {
                assertThat(written).containsEntry("fencing.table.audit.mode", "row");
            } else {
                assertThat(written).as(key.key()).containsKey(key.key());
            }
        }
        assertThat(written.getProperty("fencing.tables")).isEqualTo("orders,billing.payments,audit");
        assertThat(written.getProperty("fencing.database-guard.schemas")).isEqualTo("archive,reporting");
        assertThat(FencingConfig.fromProperties(written)).isEqualTo(config);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "fencing.comparison|newest|fencing.comparison",
            "fencing.comparison|newest|newer-or-equal, strictly-newer",
            "fencing.on-zero-rows|ignore|diagnose, raise",
            "fencing.mode|cluster|row, epoch",
            "fencing.column|last fence|fencing.column",
            "fencing.column|x;drop table t|plain SQL identifier",
            "fencing.tables|orders;--|fencing.tables",
            "fencing.database-guard.schemas|archive;--|fencing.database-guard.schemas",
            "fencing.database-guard.schemas|a.b|plain SQL identifier",
            "fencing.database-guard.schemas|a,,b|fencing.database-guard.schemas",
            "fencing.tables|a.b.c|schema.table",
            "fencing.table|orders|unknown fencing configuration key 'fencing.table'",
            "fencing.procedure-calls|maybe|allow, reject",
            "fencing.plan-cache-size|lots|fencing.plan-cache-size",
    })
    void badValuesNameTheKeyAndTheAllowedValues(String key, String value, String expected) {
        Properties properties = new Properties();
        properties.setProperty("fencing.tables", "orders");
        properties.setProperty(key, value);

        assertThatThrownBy(() -> FencingConfig.fromProperties(properties))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(expected);
    }

    @Test
    void noTablesIsAnError() {
        assertThatThrownBy(() -> FencingConfig.builder().build()).hasMessageContaining("fencing.tables");
    }

    @Test
    void unreadableFilesNameThePath(@TempDir Path dir) {
        Path missing = dir.resolve("missing.properties");
        assertThatThrownBy(() -> FencingConfig.load(missing)).hasMessageContaining(missing.toString());
    }

    @Fenced("ledger")
    static final class Ledger {
    }

    static final class NotFenced {
    }

    @Test
    void fencedEntitiesAddTheirTable() {
        FencingConfig config = FencingConfig.builder().fencedEntity(Ledger.class).build();

        assertThat(config.tables()).containsExactly("ledger");
        assertThatThrownBy(() -> FencingConfig.builder().fencedEntity(NotFenced.class))
                .hasMessageContaining("@dev.fencing.Fenced");
    }

    @Test
    void tableMatchingIgnoresCaseAndQuotesAndOverMatchesUnqualifiedNames() {
        TableName configured = TableName.parse("billing.payments");

        assertThat(configured.matches(TableName.parse("\"PAYMENTS\""))).isTrue();
        assertThat(configured.matches(TableName.parse("Billing.Payments"))).isTrue();
        assertThat(configured.matches(TableName.parse("db.billing.payments"))).isTrue();
        assertThat(configured.matches(TableName.parse("archive.payments"))).isFalse();
        assertThat(TableName.parse("payments").matches(TableName.parse("archive.payments"))).isTrue();
    }

    @Test
    void theAgentsOwnKeysAreLeftToTheAgentSoOneFileServesBoth() {
        Properties properties = new Properties();
        properties.setProperty("fencing.tables", "orders");
        properties.setProperty("fencing.agent.exclude-urls", "jdbc:postgresql://*/migrations*");

        assertThat(FencingConfig.fromProperties(properties).tables()).containsExactly("orders");
    }
}
