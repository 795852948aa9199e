package dev.fencing.it.packaging;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.jdbc.FencingDataSource;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.h2.jdbcx.JdbcDataSource;

/**
 * An application run in a JVM of its own by {@link PackagedDriverTest}, on the class path Maven
 * resolves for a module that depends on {@code fencing-driver}: it asks Spring Data JPA whether it
 * found JSqlParser (the flag its query enhancer selection reads), says where the class
 * {@code net.sf.jsqlparser.parser.CCJSqlParserUtil} comes from and parses with it when there is
 * one (the application's own copy), and writes through {@code FencingDataSource} to an H2 table:
 * one write without a fence, one with, the row read back through the raw data source.
 */
public final class JpaApplication {

    private JpaApplication() {
    }

    public static void main(String[] args) throws Exception {
        Class<?> factories = Class.forName("org.springframework.data.jpa.repository.query.QueryEnhancerFactories");
        Field present = factories.getDeclaredField("jSqlParserPresent");
        present.setAccessible(true);
        System.out.println("SPRING_DATA_JSQLPARSER " + present.getBoolean(null));
        System.out.println("APPLICATION_JSQLPARSER " + applicationsJSqlParser());
        System.out.println("FENCING " + fencedWrites());
    }

    /** Where the application's JSqlParser comes from and what it makes of a statement; "none" without one. */
    private static String applicationsJSqlParser() throws Exception {
        Class<?> util;
        try {
            util = Class.forName("net.sf.jsqlparser.parser.CCJSqlParserUtil");
        } catch (ClassNotFoundException e) {
            return "none";
        }
        Object statement = util.getMethod("parse", String.class).invoke(null, "UPDATE orders SET status = 'paid' WHERE id = 1");
        String jar = util.getProtectionDomain().getCodeSource().getLocation().getPath();
        return jar.substring(jar.lastIndexOf('/') + 1) + " parsed " + statement.getClass().getSimpleName();
    }

    private static String fencedWrites() throws SQLException {
        JdbcDataSource raw = new JdbcDataSource();
        raw.setURL("jdbc:h2:mem:packaged;DB_CLOSE_DELAY=-1");
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT)");
            s.execute("INSERT INTO orders VALUES (1, 'new', 0)");
        }
        StringBuilder result = new StringBuilder();
        FencingDataSource fenced = new FencingDataSource(raw, FencingConfig.builder().table("orders").build());
        try (Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE orders SET status = 'unfenced' WHERE id = 1");
            result.append("unfenced=applied");
        } catch (MissingFenceException e) {
            result.append("unfenced=MissingFenceException");
        }
        try (Fence.Scope scope = Fence.enter(7); Connection c = fenced.getConnection(); Statement s = c.createStatement()) {
            result.append(" fenced=").append(s.executeUpdate("UPDATE orders SET status = 'paid' WHERE id = 1"));
        }
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet row = s.executeQuery("SELECT status, last_fence FROM orders WHERE id = 1")) {
            row.next();
            result.append(" row=").append(row.getString(1)).append('/').append(row.getLong(2));
        }
        return result.toString();
    }
}
