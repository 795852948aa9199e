package dev.fencing.testing;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Creates the scratch area behind a {@link TestDatabase} parameter. The vendor code sits in
 * {@link PostgresScratch} and {@link MariaDbScratch}, which load only when used, so a user who
 * tests on one database needs only that database's driver.
 */
final class Scratch {

    private static final SecureRandom RANDOM = new SecureRandom();

    private Scratch() {
    }

    /** Creates a scratch area on {@code kind}'s server; closing the result drops it. */
    static ScratchArea create(TestDatabase.Kind kind) throws SQLException {
        String url = kind.url();
        String name = newName();
        try {
            switch (kind) {
                case POSTGRESQL:
                    return PostgresScratch.create(url, name);
                case MARIADB:
                    return MariaDbScratch.create(url, name);
                default:
                    throw new AssertionError(kind);
            }
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException("@TestDatabase(" + kind + ") needs the JDBC driver on the test classpath: "
                    + (kind == TestDatabase.Kind.POSTGRESQL ? "org.postgresql:postgresql" : "org.mariadb.jdbc:mariadb-java-client"), e);
        } catch (SQLException e) {
            throw new SQLException("cannot create scratch area " + name + " for @TestDatabase(" + kind + ") at "
                    + Env.redact(url) + " (set " + kind.variable() + " to point elsewhere): " + e.getMessage(),
                    e.getSQLState(), e);
        }
    }

    /** {@code fx_} and 12 random hex digits: a valid unquoted identifier on both databases. */
    static String newName() {
        byte[] bytes = new byte[6];
        RANDOM.nextBytes(bytes);
        return "fx_" + HexFormat.of().formatHex(bytes);
    }

    static void execute(DataSource dataSource, String... statements) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }
}
