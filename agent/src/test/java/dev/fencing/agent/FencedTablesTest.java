package dev.fencing.agent;

import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.Fenced;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import dev.fencing.internal.config.TableName;
import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FencedTablesTest {

    @Fenced("billing.invoices")
    static final class Invoice {
    }

    @Fenced
    @jakarta.persistence.Table(name = "shipments", schema = "logistics")
    static final class Shipment {
    }

    @Fenced("not a table")
    static final class Broken {
    }

    static final class Plain {
    }

    private static Properties keys(String... pairs) {
        Properties properties = new Properties();
        for (int i = 0; i < pairs.length; i += 2) {
            properties.setProperty(pairs[i], pairs[i + 1]);
        }
        return properties;
    }

    @Test
    void withNoTableThereIsNothingToFence() throws Exception {
        FencedTables tables = new FencedTables(keys(FencingConfig.COLUMN, "fence"));
        assertThat(tables.current()).isNull();
    }

    @Test
    void eachEntityMakesANewConfigurationWithItsTable() throws Exception {
        FencedTables tables = new FencedTables(keys(FencingConfig.TABLES, "orders", FencingConfig.COLUMN, "fence"));
        FencingConfig before = tables.current();

        tables.entityDefined(getClass().getClassLoader(), Invoice.class.getName());
        tables.entityDefined(getClass().getClassLoader(), Shipment.class.getName());
        tables.entityDefined(getClass().getClassLoader(), Plain.class.getName()); // only mentioned @Fenced
        FencingConfig after = tables.current();

        assertThat(FencedTableSet.of(before).names()).containsExactly(TableName.parse("orders"));
        assertThat(FencedTableSet.of(after).names()).containsExactly(TableName.parse("orders"),
                TableName.parse("billing.invoices"), TableName.parse("logistics.shipments"));
        assertThat(after.column()).isEqualTo("fence");
        assertThat(tables.current()).isSameAs(after); // unchanged until another entity comes
    }

    @Test
    void anEntityWhoseTableCannotBeFencedRefusesEveryConnectionAfter() throws Exception {
        FencedTables tables = new FencedTables(keys(FencingConfig.TABLES, "orders"));
        tables.addEntity(Broken.class);

        assertThatThrownBy(tables::current).isInstanceOf(FencingException.class)
                .hasMessageContaining("not a table");
        tables.addEntity(Invoice.class);
        assertThatThrownBy(tables::current).isInstanceOf(FencingException.class);
    }

    @Test
    void aConnectionClassThatCannotBeInstrumentedRefusesEveryConnectionAfter() throws Exception {
        FencedTables tables = new FencedTables(keys(FencingConfig.TABLES, "orders"));
        assertThat(tables.current()).isNotNull();

        tables.instrumentationFailed("com.example.jdbc.Driver", new IllegalStateException("frames"));

        assertThatThrownBy(tables::current).isInstanceOf(FencingException.class)
                .hasMessageContaining("could not instrument com.example.jdbc.Driver")
                .hasMessageContaining("every connection is refused");
        tables.addEntity(Invoice.class); // stays refused
        assertThatThrownBy(tables::current).hasMessageContaining("com.example.jdbc.Driver");
    }
}
