package dev.fencing.testing;

import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link PgBouncer} against a real {@code pgbouncer} in front of the test PostgreSQL. */
class PgBouncerTest {

    @Test
    void inTransactionModeTwoClientsShareOneServerSessionAndASessionSettingLeaks() throws SQLException {
        try (PgBouncer bouncer = PgBouncer.start(PgBouncer.PoolMode.TRANSACTION, 1);
             Connection a = DriverManager.getConnection(bouncer.jdbcUrl());
             Connection b = DriverManager.getConnection(bouncer.jdbcUrl())) {
            assertTrue(bouncer.jdbcUrl().contains("prepareThreshold=0"), bouncer.jdbcUrl());
            execute(a, "SELECT set_config('fencing.test', 'from-a', false)");
            assertEquals(backendPid(a), backendPid(b), "pool size 1: one server session for both clients");
            assertEquals("from-a", query(b, "SELECT current_setting('fencing.test', true)"),
                    "transaction mode resets nothing between clients");
            // pgjdbc prepares nothing server-side with prepareThreshold=0: the same statement many times works
            for (int i = 0; i < 10; i++) {
                try (var select = b.prepareStatement("SELECT ?::int")) {
                    select.setInt(1, i);
                    try (ResultSet rows = select.executeQuery()) {
                        rows.next();
                        assertEquals(i, rows.getInt(1));
                    }
                }
            }
        }
    }

    @Test
    void inSessionModeALeavingClientsSettingsAreDiscarded() throws SQLException {
        try (PgBouncer bouncer = PgBouncer.start(PgBouncer.PoolMode.SESSION, 1)) {
            String pid;
            try (Connection a = DriverManager.getConnection(bouncer.jdbcUrl())) {
                execute(a, "SELECT set_config('fencing.test', 'from-a', false)");
                pid = backendPid(a);
            }
            try (Connection b = DriverManager.getConnection(bouncer.jdbcUrl())) {
                assertEquals(pid, backendPid(b), "pool size 1: the same server session, after a");
                String value = query(b, "SELECT coalesce(current_setting('fencing.test', true), '')");
                assertEquals("", value, "server_reset_query (DISCARD ALL) ran when a left");
            }
        }
    }

    @Test
    void closeStopsTheProcessAndFreesThePort() throws Exception {
        PgBouncer bouncer = PgBouncer.start(PgBouncer.PoolMode.TRANSACTION, 2);
        ProcessHandle process = ProcessHandle.of(bouncer.pid()).orElseThrow();
        assertTrue(bouncer.isRunning());
        bouncer.close();
        bouncer.close();
        assertFalse(bouncer.isRunning());
        assertFalse(process.isAlive(), "reaped");
        assertThrows(ConnectException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(bouncer.host(), bouncer.port()), 1000);
            }
        });
    }

    @Test
    void twoBouncersGetTwoPorts() {
        try (PgBouncer first = PgBouncer.start(PgBouncer.PoolMode.SESSION, 1);
             PgBouncer second = PgBouncer.start(PgBouncer.PoolMode.SESSION, 1)) {
            assertNotEquals(first.port(), second.port());
        }
    }

    @Test
    void theUpstreamComesFromAJdbcUrl() {
        PgBouncer.Upstream upstream = PgBouncer.Upstream.parse("jdbc:postgresql://db.example:6000/app?user=svc&password=s%20t");
        assertEquals(new PgBouncer.Upstream("db.example", 6000, "app", "svc", "s t"), upstream);
        assertFalse(upstream.toString().contains("s t"), "no password in toString");
        assertEquals(5432, PgBouncer.Upstream.parse("jdbc:postgresql://127.0.0.1/test?user=postgres").port());
        assertThrows(IllegalArgumentException.class, () -> PgBouncer.Upstream.parse("jdbc:mariadb://127.0.0.1/test"));
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static String backendPid(Connection connection) throws SQLException {
        return query(connection, "SELECT pg_backend_pid()");
    }

    private static String query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
