package dev.fencing.internal.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code guard --jdbc URL --config FILE print|install|verify|remove} on an H2 database of its own. */
class GuardCommandTest {

    @Test
    void printInstallVerifyRemove(@TempDir Path dir) throws Exception {
        String url = "jdbc:h2:mem:guard_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        Path config = Files.writeString(dir.resolve("fencing.properties"),
                "fencing.tables=orders\nfencing.database-guard=required\n");
        try (Connection keeper = DriverManager.getConnection(url); Statement statement = keeper.createStatement()) {
            statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT DEFAULT 0 NOT NULL)");

            assertThat(guard(url, config, "verify").status).isEqualTo(1);
            Run print = guard(url, config, "print");
            assertThat(print.status).isZero();
            assertThat(print.out).contains("CREATE TRIGGER").contains("H2GuardTrigger").contains(";;");
            assertThat(guard(url, config, "install").status).isZero();
            assertThat(guard(url, config, "install").status).isZero();
            Run verify = guard(url, config, "verify");
            assertThat(verify.status).isZero();
            assertThat(verify.out).contains("current");
            assertThatThrownBy(() -> statement.execute("INSERT INTO orders (id, status) VALUES (1, 'x')"))
                    .isInstanceOf(SQLException.class).satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("ZF002"));
            assertThat(guard(url, config, "remove").status).isZero();
            Run missing = guard(url, config, "verify");
            assertThat(missing.status).isEqualTo(1);
            assertThat(missing.err).contains("ORDERS").contains("missing");
            statement.execute("INSERT INTO orders (id, status) VALUES (1, 'x')");
        }
    }

    @Test
    void verifyWarnsAboutASameNamedTableOutsideTheGuardsSchemasAndStillPasses(@TempDir Path dir) throws Exception {
        String url = "jdbc:h2:mem:guard_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1";
        Path config = Files.writeString(dir.resolve("fencing.properties"),
                "fencing.tables=orders\nfencing.database-guard=required\n");
        try (Connection keeper = DriverManager.getConnection(url); Statement statement = keeper.createStatement()) {
            statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT DEFAULT 0 NOT NULL)");
            statement.execute("CREATE SCHEMA archive");
            statement.execute("CREATE TABLE archive.orders (id BIGINT PRIMARY KEY, last_fence BIGINT DEFAULT 0 NOT NULL)");

            assertThat(guard(url, config, "install").status).isZero();
            Run verify = guard(url, config, "verify");
            assertThat(verify.status).isZero();
            assertThat(verify.out).contains("current").contains("warning: table ARCHIVE.ORDERS").contains("not covered");
            statement.execute("INSERT INTO archive.orders (id) VALUES (1)"); // no trigger there

            Path both = Files.writeString(dir.resolve("both.properties"),
                    "fencing.tables=orders\nfencing.database-guard=required\nfencing.database-guard.schemas=archive\n");
            assertThat(guard(url, both, "install").status).isZero();
            Run covered = guard(url, both, "verify");
            assertThat(covered.status).isZero();
            assertThat(covered.out).doesNotContain("warning");
            assertThatThrownBy(() -> statement.execute("INSERT INTO archive.orders (id) VALUES (2)"))
                    .isInstanceOf(SQLException.class).satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("ZF002"));
            assertThat(guard(url, both, "remove").status).isZero();
        }
    }

    private record Run(int status, String out, String err) {
    }

    private static Run guard(String url, Path config, String action) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Guard.run(new String[] {"--jdbc", url, "--config", config.toString(), action},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
