package dev.fencing.internal.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerAddressTest {

    /** A store that takes a path after its servers (as ZooKeeper's chroot). */
    private static final ServerAddress.Syntax ROOTED = new ServerAddress.Syntax("Demo", "a Demo address", "demo", "demos",
            "Demo credentials are written user:password@,", "root", null, List.of("timeout", "file", "keyPassword"));
    /** A store that takes none (as etcd). */
    private static final ServerAddress.Syntax FLAT = new ServerAddress.Syntax("flat", "a flat address", "flat", "flats",
            "flat credentials are written user:password@,", null, "a flat address has no path (use ?timeout=...)",
            List.of("timeout"));

    @Test
    void splitsServersCredentialsPathAndOptions() {
        ServerAddress address = ServerAddress.parse(" demo://bob:p%40ss@h1:1,[::1]:2 , h3:65535/a/b/?timeout=5s&file=%2Ftmp%2Fx ",
                ROOTED);
        assertThat(address.tls()).isFalse();
        assertThat(address.hosts()).containsExactly("h1:1", "[::1]:2", "h3:65535");
        assertThat(address.path()).isEqualTo("/a/b");
        assertThat(address.user()).isEqualTo("bob");
        assertThat(address.password()).isEqualTo("p@ss");
        assertThat(address.option("timeout")).isEqualTo("5s");
        assertThat(address.option("file")).isEqualTo("/tmp/x");
        assertThat(address.hasOption("keyPassword")).isFalse();
        assertThat(address.option("keyPassword")).isNull();
        assertThat(address.toString()).isEqualTo("demo://bob@h1:1,[::1]:2,h3:65535/a/b");
        assertThat(address.redacted()).doesNotContain("p%40ss").contains("bob:***@");

        ServerAddress tls = ServerAddress.parse("demos://h:1/", ROOTED);
        assertThat(tls.tls()).isTrue();
        assertThat(tls.path()).isNull();
        assertThat(tls.user()).isNull();
        assertThat(tls.toString()).isEqualTo("demos://h:1");
        assertThat(ServerAddress.parse("flat://h:1/", FLAT).path()).isNull();
    }

    @Test
    void refusesAMissingAddressOrSchemeNamingTheForm() {
        assertThatThrownBy(() -> ServerAddress.parse(null, ROOTED)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a Demo address is required: demo://host:port[,host:port...][/root]");
        assertThatThrownBy(() -> ServerAddress.parse("  ", FLAT))
                .hasMessage("a flat address is required: flat://host:port[,host:port...]");
        assertThatThrownBy(() -> ServerAddress.parse("http://u:secret@h:1", ROOTED))
                .hasMessage("a Demo address starts with demo:// (or demos:// for TLS), got http://...");
        assertThatThrownBy(() -> ServerAddress.parse("h:1", ROOTED))
                .hasMessage("a Demo address starts with demo:// (or demos:// for TLS), got no scheme");
    }

    @Test
    void refusesServersThatAreNotHostAndPort() {
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:1,,h:2", ROOTED))
                .hasMessage("a Demo address lists host:port pairs separated by commas; one is empty in demo://h:1,,h:2");
        assertThatThrownBy(() -> ServerAddress.parse("demo://", ROOTED)).hasMessageContaining("one is empty");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h", ROOTED))
                .hasMessage("not a host:port in the Demo address (the port is required): 'h'");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:0", ROOTED)).hasMessageContaining("'h:0'");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:65536", ROOTED)).hasMessageContaining("'h:65536'");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:port", ROOTED)).hasMessageContaining("'h:port'");
        assertThatThrownBy(() -> ServerAddress.parse("demo://a b:1", ROOTED))
                .hasMessage("not a host:port in the Demo address: 'a b:1'");
    }

    @Test
    void refusesCredentialsWithoutAPasswordWithoutEchoingIt() {
        assertThatThrownBy(() -> ServerAddress.parse("demo://bob@h:1", ROOTED))
                .hasMessage("Demo credentials are written user:password@, in demo://bob:***@h:1");
        assertThatThrownBy(() -> ServerAddress.parse("demo://:hunter2@h:1", ROOTED))
                .hasMessageContaining("user:password@").hasMessageNotContaining("hunter2");
    }

    @Test
    void checksThePathByWhatTheStoreTakes() {
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:1/a//b", ROOTED))
                .hasMessage("not a valid Demo root: '/a//b' in demo://h:1/a//b");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:1/a/../b", ROOTED)).hasMessageContaining("'/a/../b'");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:1/./b", ROOTED)).hasMessageContaining("'/./b'");
        assertThatThrownBy(() -> ServerAddress.parse("flat://h:1/locks", FLAT))
                .hasMessage("a flat address has no path (use ?timeout=...): flat://h:1/locks");
        assertThatThrownBy(() -> ServerAddress.parse("flat://h:1//", FLAT)).hasMessageContaining("has no path");
        // Without a path, a '/' before the '@' is part of the password: hidden, and named as a path.
        assertThatThrownBy(() -> ServerAddress.parse("flat://bob:hun/ter2@h:1", FLAT))
                .hasMessage("a flat address has no path (use ?timeout=...): flat://bob:***@h:1");
        // With a path, an '@' after the '/' belongs to the path: nothing to hide.
        assertThat(ServerAddress.parse("demo://h:1/team@x", ROOTED).path()).isEqualTo("/team@x");
    }

    @Test
    void refusesOptionsItDoesNotKnowOrThatHaveNoValueWithoutEchoingValues() {
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:1?retries=3", ROOTED))
                .hasMessage("unknown Demo address option 'retries' in demo://h:1?retries=3; allowed: timeout, file, keyPassword");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:1?keyPassword=hunter2&timeout", ROOTED))
                .hasMessage("Demo address option without a value: 'timeout' in demo://h:1?keyPassword=***&timeout");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:1?=5s", ROOTED))
                .hasMessage("Demo address option without a value: '=5s' in demo://h:1?=5s");
        assertThatThrownBy(() -> ServerAddress.parse("demo://h:1?=", ROOTED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without a value: '='");
        assertThatThrownBy(() -> ServerAddress.parse("flat://u:hunter2@h:1?x=1", FLAT))
                .hasMessageContaining("'x'").hasMessageNotContaining("hunter2");
    }

    @Test
    void requireReadableNamesTheOptionAndTheFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("ca.pem"), "x");
        ServerAddress readable = ServerAddress.parse("demo://h:1?file=" + file, ROOTED);
        readable.requireReadable("file");
        readable.requireReadable("timeout"); // not given: nothing to read
        ServerAddress missing = ServerAddress.parse("demo://h:1?file=" + dir.resolve("absent.pem"), ROOTED);
        assertThatThrownBy(() -> missing.requireReadable("file"))
                .hasMessage("Demo address option file: cannot read " + dir.resolve("absent.pem"));
    }

    @Test
    void aSyntaxEitherTakesAPathOrSaysWhyNot() {
        assertThatThrownBy(() -> new ServerAddress.Syntax("x", "an x address", "x", "xs", "c", null, null, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ServerAddress.Syntax("x", "an x address", "x", "xs", "c", "root", "no path", List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
