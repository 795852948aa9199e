package dev.fencing.agent;

import dev.fencing.FencingConfig;
import dev.fencing.FencingException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WeaverTest {

    static class HiddenBase {
    }

    /** A driver whose super class the class loader does not show as a class file. */
    abstract static class HiddenDriver extends HiddenBase implements java.sql.Driver {
        @Override
        public Connection connect(String url, Properties info) {
            return null;
        }
    }

    /** Something else that declares {@code connect}, over the same hidden super class. */
    abstract static class HiddenSocket extends HiddenBase {
        void connect(String host) {
        }
    }

    private static byte[] classfile(Class<?> type) throws IOException {
        String name = type.getName();
        try (InputStream in = type.getResourceAsStream(name.substring(name.lastIndexOf('.') + 1) + ".class")) {
            return in.readAllBytes();
        }
    }

    private static FencedTables tables() {
        Properties keys = new Properties();
        keys.setProperty(FencingConfig.TABLES, "orders");
        return new FencedTables(keys);
    }

    @Test
    void aConnectionClassWhoseHierarchyCannotBeReadRefusesEveryConnection() throws Exception {
        FencedTables tables = tables();
        try (URLClassLoader hiding = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
            byte[] woven = new Weaver(tables).weave(hiding, HiddenDriver.class.getName().replace('.', '/'),
                    classfile(HiddenDriver.class));
            assertThat(woven).isNull();
        }
        assertThatThrownBy(tables::current).isInstanceOf(FencingException.class)
                .hasMessageContaining("could not instrument " + HiddenDriver.class.getName());
    }

    @Test
    void anotherClassWhoseHierarchyCannotBeReadIsOnlyReported() throws Exception {
        FencedTables tables = tables();
        try (URLClassLoader hiding = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
            assertThat(new Weaver(tables).weave(hiding, HiddenSocket.class.getName().replace('.', '/'),
                    classfile(HiddenSocket.class))).isNull();
        }
        assertThat(tables.current()).isNotNull();
    }

    @Test
    void aDriverIsWoven() throws Exception {
        FencedTables tables = tables();
        byte[] original = classfile(org.h2.Driver.class);
        byte[] woven = new Weaver(tables).weave(org.h2.Driver.class.getClassLoader(), "org/h2/Driver", original);
        assertThat(woven).isNotNull().isNotEqualTo(original);
        assertThat(new String(woven, java.nio.charset.StandardCharsets.ISO_8859_1)).contains("dev/fencing/agent/bootstrap/AgentBridge");
        assertThat(tables.current()).isNotNull();
    }
}
