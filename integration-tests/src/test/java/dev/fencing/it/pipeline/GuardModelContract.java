package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.DatabaseGuard;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The guard's randomized model test (issue 27) on one database: {@link GuardModel} runs random
 * sequences of fenced and raw checkouts of one HikariCP pool (of one or two connections), fence
 * scopes on several threads (virtual ones too on Java 21+), reads, writes, function calls, failing
 * statements, transaction ends by JDBC and by text, savepoints, auto-commit toggles, migrations, raw
 * scripts that mark their session, closes and aborts; every write is judged by the model of
 * docs/guard.md and the table is read back raw after every step. A failure prints the shrunk
 * sequence and its seed ({@code -Dfencing.guardmodel.seed=..}); {@code -Plong} searches longer.
 */
abstract class GuardModelContract {

    /** The database, its pool's data source and its texts. */
    abstract GuardModel.Target target();

    /** DDL of {@code <schema>.mark(id, status)}: sets the order's status, returns 1. */
    abstract List<String> markFunction();

    @BeforeEach
    void installTheGuard() throws SQLException {
        GuardModel.Target target = target();
        DatabaseGuard.remove(target.direct(), target.config());
        sql("DROP TABLE IF EXISTS " + target.orders(),
                "CREATE TABLE " + target.orders() + " (id BIGINT PRIMARY KEY, status VARCHAR(40),"
                        + " last_fence BIGINT NOT NULL DEFAULT 0)");
        sql(markFunction().toArray(String[]::new));
        DatabaseGuard.install(target.direct(), target.config());
    }

    @AfterEach
    void removeTheGuard() throws SQLException {
        DatabaseGuard.remove(target().direct(), target().config());
    }

    void sql(String... statements) throws SQLException {
        try (Connection connection = target().direct().getConnection(); Statement statement = connection.createStatement()) {
            for (String text : statements) {
                statement.execute(text);
            }
        }
    }

    @Test
    void randomSequencesWriteOnlyWhatTheModelAllows() throws Exception {
        GuardModel model = new GuardModel(target());
        // every sequence starts with a sanctioned migration that resets the rows: one WARNING each
        java.util.logging.Logger migrations = java.util.logging.Logger.getLogger("dev.fencing.internal.guard.Guards");
        java.util.logging.Level level = migrations.getLevel();
        migrations.setLevel(java.util.logging.Level.SEVERE);
        GuardModel.Report report;
        try {
            report = model.search(GuardModel.Budget.fromSystemProperties());
        } finally {
            migrations.setLevel(level);
        }
        System.out.println(report.summary() + "  workers: " + model.workerNames() + " on Java " + Runtime.version());
        assertThat(report.found()).as(report.summary()).isEmpty();
    }
}
