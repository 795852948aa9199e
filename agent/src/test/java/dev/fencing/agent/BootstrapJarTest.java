package dev.fencing.agent;

import dev.fencing.Fence;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BootstrapJarTest {

    @Test
    void fenceFencedAndTheBridgeGoOnTheBootstrapPathAndNothingElse() {
        BootstrapJar.Selection all = BootstrapJar.Selection.of(new Class<?>[] {String.class});
        assertThat(all.belongs("dev/fencing/Fence.class")).isTrue();
        assertThat(all.belongs("dev/fencing/Fence$Scope.class")).isTrue();
        assertThat(all.belongs("dev/fencing/Fenced.class")).isTrue();
        // the registry of fence holders goes with Fence: the driver's refusals, of another loader, read it
        assertThat(all.belongs("dev/fencing/internal/fence/FenceHolders.class")).isTrue();
        assertThat(all.belongs("dev/fencing/internal/fence/FenceHolders$Holder.class")).isTrue();
        assertThat(all.belongs("dev/fencing/agent/bootstrap/AgentBridge$Hooks.class")).isTrue();
        assertThat(all.belongs("dev/fencing/FencingConfig.class")).isFalse(); // needs java.sql
        assertThat(all.belongs("dev/fencing/FencingException.class")).isFalse();
        assertThat(all.belongs("dev/fencing/agent/FencingAgent.class")).isFalse();
    }

    @Test
    void aFenceLoadedBeforeTheAgentStaysWhereItIs() {
        BootstrapJar.Selection selection = BootstrapJar.Selection.of(new Class<?>[] {Fence.class, String.class});
        assertThat(selection.belongs("dev/fencing/Fence.class")).isFalse();
        assertThat(selection.belongs("dev/fencing/Fence$Frame.class")).isFalse();
        assertThat(selection.belongs("dev/fencing/internal/fence/FenceHolders.class")).isFalse();
        assertThat(selection.belongs("dev/fencing/Fenced.class")).isTrue();
        assertThat(selection.belongs("dev/fencing/agent/bootstrap/AgentBridge.class")).isTrue();
    }
}
