package dev.fencing.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Fences from {@link JdbcFencedLocks} stay unique across a crash of the database, even when
 * the server is configured to lose recent commits in one ({@code synchronous_commit = off},
 * with the WAL writer flushing only every 10 s): the lock statements ask for a synchronous
 * commit of their own. Runs on a PostgreSQL server of its own, crashed with
 * {@code pg_ctl stop -m immediate} (no checkpoint, WAL buffers not written) and restarted.
 * (Without the per-statement synchronous commit, the restarted server has lost the fences
 * issued before the crash and issues them again.)
 */
class JdbcFencesAcrossACrashTest {

    @Test
    void noFenceIsIssuedTwiceAcrossACrashOfAServerThatCommitsAsynchronously() throws Exception {
        try (PrivatePostgres server = PrivatePostgres.start(
                "synchronous_commit = off", "wal_writer_delay = 10000ms", "wal_writer_flush_after = 1GB")) {
            PGSimpleDataSource database = new PGSimpleDataSource();
            database.setURL(server.jdbcUrl());
            try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
                try (ResultSet setting = statement.executeQuery("SHOW synchronous_commit")) {
                    assertThat(setting.next()).isTrue();
                    assertThat(setting.getString(1)).isEqualTo("off");
                }
            }
            List<Long> handedOut = new ArrayList<>();
            try (JdbcFencedLocks locks = JdbcFencedLocks.builder(database).idleConnections(0).build()) {
                locks.createTable();
                try (Connection connection = database.getConnection(); Statement statement = connection.createStatement()) {
                    statement.execute("CHECKPOINT"); // the table itself must survive the crash
                }
                for (int i = 0; i < 5; i++) {
                    try (Lease lease = locks.tryAcquire("order:1", Duration.ofSeconds(10)).orElseThrow()) {
                        handedOut.add(lease.fence());
                    }
                }
                handedOut.add(locks.tryAcquire("order:1", Duration.ofMillis(300)).orElseThrow().fence());
            }
            server.crash();
            server.startServer();
            try (JdbcFencedLocks locks = JdbcFencedLocks.builder(database).idleConnections(0).build();
                    Lease afterCrash = locks.acquire("order:1", Duration.ofSeconds(10), Duration.ofSeconds(10))) {
                System.out.printf("JDBC fences across a crash of a server with synchronous_commit = off: %s, then %d%n",
                        handedOut, afterCrash.fence());
                assertThat(afterCrash.fence()).as("the fence after the crash; before it: %s", handedOut)
                        .isGreaterThan(handedOut.get(handedOut.size() - 1));
            }
        }
    }
}
