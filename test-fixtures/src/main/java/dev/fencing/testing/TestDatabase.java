package dev.fencing.testing;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Hands a test a {@link javax.sql.DataSource} on a scratch area of a real database that
 * belongs to the test class alone and is dropped after it: a PostgreSQL schema or a MariaDB
 * database named {@code fx_<random>}.
 *
 * <p>On a test class, every {@code DataSource} parameter of its constructor, test methods and
 * lifecycle methods ({@code @BeforeAll}, {@code @BeforeEach}, ...) gets the scratch area:
 *
 * <pre>{@code
 * @TestDatabase(Kind.POSTGRESQL)
 * class TransferTest {
 *     @BeforeAll
 *     static void schema(DataSource db) throws SQLException {
 *         try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
 *             s.execute("CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)");
 *         }
 *     }
 *
 *     @Test
 *     void staleHolderCannotWrite(DataSource db) {
 *         DataSource fenced = new FencingDataSource(db, FencingConfig.builder().tables("accounts").build());
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>On a parameter it picks the database for that parameter, so one test can use both:
 *
 * <pre>{@code
 * @Test
 * void sameOnBoth(@TestDatabase(Kind.POSTGRESQL) DataSource pg, @TestDatabase(Kind.MARIADB) DataSource maria) { ... }
 * }</pre>
 *
 * <p>Every method of the class, and of its {@code @Nested} classes, sees the same scratch area,
 * so tables made in {@code @BeforeAll} are there for all of them. PostgreSQL connections have
 * the schema as their {@code currentSchema}: unqualified names create and find tables there.
 * MariaDB connections have the database as their catalog.
 *
 * <p>The servers come from {@code FENCING_PG_URL} (default
 * {@code jdbc:postgresql://127.0.0.1:5432/test?user=postgres}) and {@code FENCING_MARIADB_URL}
 * (default {@code jdbc:mariadb://127.0.0.1:3306/test?user=root}); the user needs the right to
 * create schemas or databases. The test classpath must hold the driver: pgjdbc
 * ({@code org.postgresql:postgresql}) or MariaDB Connector/J
 * ({@code org.mariadb.jdbc:mariadb-java-client}).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.PARAMETER})
@ExtendWith(DatabaseExtension.class)
public @interface TestDatabase {

    /** Which database the scratch area is on. */
    Kind value();

    /** The databases {@link TestDatabase} can make a scratch area on. */
    enum Kind {
        /** A schema on the PostgreSQL server at {@code FENCING_PG_URL}. */
        POSTGRESQL("FENCING_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
        /** A database on the MariaDB (or MySQL) server at {@code FENCING_MARIADB_URL}. */
        MARIADB("FENCING_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root");

        private final String variable;
        private final String fallback;

        Kind(String variable, String fallback) {
            this.variable = variable;
            this.fallback = fallback;
        }

        /** The environment variable that holds the server's JDBC URL. */
        public String variable() {
            return variable;
        }

        /** The server's JDBC URL: the environment variable's value, else the loopback default. */
        public String url() {
            return Env.get(variable, fallback);
        }
    }
}
