package dev.fencing.agent;

import dev.fencing.internal.config.FencedTableSet;
import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigLayerTest {

    private static FencingConfig tables(String... names) {
        return FencingConfig.builder().tables(names).build();
    }

    @Test
    void theApplicationsLayerCoveringEveryTableNeedsNoSecond() throws Exception {
        assertThat(ConfigLayer.over(tables("orders", "payments"), tables("orders"))).isNull();
        // the application's unqualified name covers the agent's qualified one
        assertThat(ConfigLayer.over(tables("orders"), tables("billing.orders"))).isNull();
        assertThat(ConfigLayer.over(tables("\"Orders\""), tables("ORDERS"))).isNull();
    }

    @Test
    void theAgentsOtherTablesGetALayerOfTheirOwn() throws Exception {
        FencingConfig agent = FencingConfig.builder().tables("orders", "payments", "audit").column("fence")
                .tableMode("audit", FencingConfig.Mode.EPOCH).build();
        FencingConfig application = FencingConfig.builder().tables("orders").column("fence").build();

        FencingConfig layer = ConfigLayer.over(application, agent);

        assertThat(FencedTableSet.of(layer).names()).extracting(Object::toString).containsExactlyInAnyOrder("payments", "audit");
        assertThat(layer.column()).isEqualTo("fence");
        assertThat(FencedTableSet.of(layer).modeOf(FencedTableSet.of(layer).fencedTableFor(dev.fencing.internal.config.TableName.parse("audit"))))
                .isEqualTo(FencingConfig.Mode.EPOCH);
    }

    @Test
    void aSharedTableWithAnotherCheckIsRefused() {
        FencingConfig agent = FencingConfig.builder().tables("orders").column("fence").build();
        assertThatThrownBy(() -> ConfigLayer.over(tables("orders"), agent))
                .isInstanceOf(FencingException.class).hasMessageContaining("orders")
                .hasMessageContaining("fencing.column (last_fence / fence)");
        FencingConfig strict = FencingConfig.builder().tables("orders")
                .comparison(FencingConfig.Comparison.STRICTLY_NEWER).build();
        assertThatThrownBy(() -> ConfigLayer.over(tables("orders"), strict)).hasMessageContaining("fencing.comparison");
        FencingConfig epoch = FencingConfig.builder().tables("orders").mode(FencingConfig.Mode.EPOCH).build();
        assertThatThrownBy(() -> ConfigLayer.over(tables("orders"), epoch)).hasMessageContaining("the mode (row / epoch)");
    }

    @Test
    void namesThatOverlapOnlyInPartAreRefused() {
        assertThatThrownBy(() -> ConfigLayer.over(tables("billing.orders"), tables("orders")))
                .isInstanceOf(FencingException.class)
                .hasMessageContaining("overlap only in part");
    }
}
