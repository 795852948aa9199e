package example.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import java.net.URL;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An application that knows nothing of the agent: it opens connections its own way and writes
 * under fences it enters itself (it uses only the {@code Fence} API). Run under
 * {@code -javaagent:fencing-agent.jar}.
 *
 * <p>Arguments: {@code <postgres-url> <table> <mode>:<row-id> ...}; modes: {@code hikari}
 * (HikariCP over a plain jdbc:postgresql: URL, pool started eagerly), {@code hikari-lazy} (pool
 * started by the first getConnection), {@code drivermanager}, {@code pgsimple}
 * (PGSimpleDataSource), {@code fencingds} (the application's own FencingDataSource over
 * HikariCP), {@code h2} (H2's JdbcDataSource, in memory; the row is read back here). Each row
 * starts with fence 7: the write under fence 9 must apply, the one under 5 (stale) and the one
 * without a fence must be refused.
 */
public final class WritesSample {

    static final long CURRENT = 9;
    static final long STALE = 5;

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String table = args[1];
        System.out.println("FENCE loader=" + loaderName(Fence.class.getClassLoader()) + " copies=" + fenceCopies());
        for (int i = 2; i < args.length; i++) {
            String[] modeAndId = args[i].split(":");
            String mode = modeAndId[0];
            long id = Long.parseLong(modeAndId[1]);
            try (Source source = open(mode, url, table)) {
                System.out.println(run(mode, source, table, id));
            }
        }
    }

    static String run(String mode, Source source, String table, long id) throws SQLException {
        StringBuilder out = new StringBuilder("RESULT mode=" + mode);
        String update = "UPDATE " + table + " SET status = ? WHERE id = ?";
        try (Fence.Scope scope = Fence.enter(CURRENT); Connection c = source.get()) {
            out.append(" connection=").append(c.getClass().getName());
            out.append(" current=").append(write(c, update, "current", id));
        }
        try (Fence.Scope scope = Fence.enter(STALE); Connection c = source.get()) {
            out.append(" stale=").append(write(c, update, "stale", id));
        }
        try (Connection c = source.get()) {
            out.append(" none=").append(write(c, update, "none", id));
        }
        if (mode.equals("h2")) {
            try (Connection c = source.get();
                 PreparedStatement read = c.prepareStatement("SELECT status, last_fence FROM " + table + " WHERE id = ?")) {
                read.setLong(1, id);
                try (ResultSet row = read.executeQuery()) {
                    row.next();
                    out.append(" row=").append(row.getString(1)).append('/').append(row.getLong(2));
                }
            }
        }
        return out.toString();
    }

    /** The update count, or the simple name of the exception that refused the write. */
    static String write(Connection c, String update, String status, long id) {
        try (PreparedStatement statement = c.prepareStatement(update)) {
            statement.setString(1, status);
            statement.setLong(2, id);
            return Integer.toString(statement.executeUpdate());
        } catch (SQLException e) {
            return e.getClass().getSimpleName();
        }
    }

    interface Source extends AutoCloseable {
        Connection get() throws SQLException;

        @Override
        default void close() throws Exception {
        }
    }

    static Source open(String mode, String url, String table) throws SQLException {
        switch (mode) {
            case "hikari": {
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(url);
                config.setMaximumPoolSize(2);
                HikariDataSource pool = new HikariDataSource(config);
                return source(pool::getConnection, pool);
            }
            case "hikari-lazy": {
                HikariDataSource pool = new HikariDataSource();
                pool.setJdbcUrl(url);
                pool.setMaximumPoolSize(2);
                return source(pool::getConnection, pool);
            }
            case "drivermanager":
                return () -> DriverManager.getConnection(url);
            case "pgsimple": {
                PGSimpleDataSource dataSource = new PGSimpleDataSource();
                dataSource.setURL(url);
                return dataSource::getConnection;
            }
            case "fencingds": {
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(url);
                config.setMaximumPoolSize(2);
                FencingDataSource fenced = new FencingDataSource(new HikariDataSource(config),
                        FencingConfig.builder().tables(table).build());
                return source(fenced::getConnection, fenced);
            }
            case "h2": {
                // the table is made by H2 itself when the database is opened: DDL on a fenced
                // table is refused through a fenced connection, and every connection is fenced
                JdbcDataSource dataSource = new JdbcDataSource();
                dataSource.setURL("jdbc:h2:mem:agent;DB_CLOSE_DELAY=-1;INIT=CREATE TABLE IF NOT EXISTS " + table
                        + " AS SELECT CAST(1 AS BIGINT) AS id, CAST('seed' AS VARCHAR(40)) AS status, CAST(7 AS BIGINT) AS last_fence");
                return dataSource::getConnection;
            }
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    private static Source source(Source connections, AutoCloseable resource) {
        return new Source() {
            @Override
            public Connection get() throws SQLException {
                return connections.get();
            }

            @Override
            public void close() throws Exception {
                resource.close();
            }
        };
    }

    static String loaderName(ClassLoader loader) {
        return loader == null ? "bootstrap" : loader.getClass().getName();
    }

    /** Where dev/fencing/Fence.class can be found, bootstrap path first (parent-first order). */
    static String fenceCopies() throws Exception {
        List<String> copies = new ArrayList<>();
        for (URL url : Collections.list(ClassLoader.getSystemClassLoader().getResources("dev/fencing/Fence.class"))) {
            String text = url.toString();
            copies.add(text.contains("fencing-agent-bootstrap") ? "agent-bootstrap"
                    : text.contains("fencing-agent") ? "agent-jar"
                    : text.contains("fencing-driver") || text.contains("driver/target/classes") ? "app-driver"
                    : text);
        }
        return String.join(",", copies);
    }
}
