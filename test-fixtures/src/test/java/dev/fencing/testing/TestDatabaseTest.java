package dev.fencing.testing;

import dev.fencing.testing.Samples.Sample;
import dev.fencing.testing.TestDatabase.Kind;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

/**
 * {@link TestDatabase} gives each test class its own schema (PostgreSQL) or database (MariaDB),
 * the same one in the constructor, lifecycle methods, test methods and nested classes, and
 * drops it after the class. Sample classes run through the test kit so that what they leave
 * behind can be checked once they have finished.
 */
class TestDatabaseTest {

    /** Where each sample's connections worked: the schema or database name. */
    static final Set<String> HOMES = ConcurrentHashMap.newKeySet();
    static final Map<Kind, String> HOMES_BY_KIND = new ConcurrentHashMap<>();

    @BeforeEach
    void forget() {
        HOMES.clear();
        HOMES_BY_KIND.clear();
    }

    @Test
    void postgresClassGetsOneSchemaThatIsDroppedAfterIt() throws SQLException {
        String schema = runClassScoped(PostgresSample.class);
        assertTrue(schema.matches("fx_[0-9a-f]{12}"), schema);
        assertGone(Kind.POSTGRESQL, schema);
    }

    @Test
    void mariaDbClassGetsOneDatabaseThatIsDroppedAfterIt() throws SQLException {
        String database = runClassScoped(MariaDbSample.class);
        assertTrue(database.matches("fx_[0-9a-f]{12}"), database);
        assertGone(Kind.MARIADB, database);
    }

    @Test
    void everyRunOfAClassGetsAFreshSchema() {
        String first = runClassScoped(PostgresSample.class);
        HOMES.clear();
        String second = runClassScoped(PostgresSample.class);
        assertNotEquals(first, second);
    }

    @Test
    void parameterAnnotationsPickTheDatabasePerParameter() throws SQLException {
        Samples.assertAllSucceed(BothKindsSample.class, 1);
        assertEquals(Set.of(Kind.POSTGRESQL, Kind.MARIADB), HOMES_BY_KIND.keySet());
        assertGone(Kind.POSTGRESQL, HOMES_BY_KIND.get(Kind.POSTGRESQL));
        assertGone(Kind.MARIADB, HOMES_BY_KIND.get(Kind.MARIADB));
    }

    @Test
    void anUnannotatedDataSourceIsNotClaimedWithoutAClassAnnotation() throws SQLException {
        EngineExecutionResults results = Samples.run(UnannotatedSample.class);
        results.testEvents().assertThatEvents().haveExactly(1, event(finishedWithFailure(
                instanceOf(ParameterResolutionException.class), message(text -> text.contains("No ParameterResolver registered")))));
        // The annotated parameter was resolved before the failure; its schema is gone all the same.
        assertGone(Kind.POSTGRESQL, HOMES_BY_KIND.get(Kind.POSTGRESQL));
    }

    @Test
    void mariaDbUrlGetsTheScratchDatabaseInPlaceOfItsOwn() {
        assertEquals("jdbc:mariadb://127.0.0.1:3306/fx_1?user=root",
                MariaDbScratch.withDatabase("jdbc:mariadb://127.0.0.1:3306/test?user=root", "fx_1"));
        assertEquals("jdbc:mariadb://db:3307/fx_1", MariaDbScratch.withDatabase("jdbc:mariadb://db:3307", "fx_1"));
        assertEquals("jdbc:mariadb://a,b/fx_1?x=1", MariaDbScratch.withDatabase("jdbc:mariadb://a,b/?x=1", "fx_1"));
    }

    @Test
    void messagesShowUrlsWithoutCredentials() {
        assertEquals("jdbc:postgresql://127.0.0.1:5432/test", Env.redact("jdbc:postgresql://127.0.0.1:5432/test?user=u&password=p"));
        assertEquals("redis://***@host:6379/0", Env.redact("redis://user:secret@host:6379/0"));
    }

    /** Runs a {@link ClassScoped} sample and returns the one schema or database all its parts saw. */
    private static String runClassScoped(Class<? extends ClassScoped> sample) {
        Samples.assertAllSucceed(sample, 3);
        assertEquals(1, HOMES.size(), () -> "constructor, @BeforeAll, tests and nested tests saw " + HOMES);
        return HOMES.iterator().next();
    }

    private static void assertGone(Kind kind, String name) throws SQLException {
        List<String> found = Sql.column(admin(kind),
                "SELECT schema_name FROM information_schema.schemata WHERE schema_name = '" + name + "'");
        assertEquals(List.of(), found, () -> name + " is still there after its test class ended");
    }

    static DataSource admin(Kind kind) throws SQLException {
        if (kind == Kind.POSTGRESQL) {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(kind.url());
            return dataSource;
        }
        return new MariaDbDataSource(kind.url());
    }

    abstract static class ClassScoped {
        ClassScoped(DataSource db) throws SQLException {
            HOMES.add(Sql.home(db));
        }

        @BeforeAll
        static void createTable(DataSource db) throws SQLException {
            HOMES.add(Sql.home(db));
            Sql.execute(db, "CREATE TABLE things (id INT PRIMARY KEY)");
        }

        @Test
        void writes(DataSource db) throws SQLException {
            HOMES.add(Sql.home(db));
            Sql.execute(db, "INSERT INTO things VALUES (1)");
        }

        @Test
        void seesTheTableMadeInBeforeAll(DataSource db) throws SQLException {
            HOMES.add(Sql.home(db));
            Sql.column(db, "SELECT COUNT(*) FROM things");
        }

        @Nested
        class Inner {
            @Test
            void sharesTheScratchArea(DataSource db) throws SQLException {
                HOMES.add(Sql.home(db));
                Sql.column(db, "SELECT COUNT(*) FROM things");
            }
        }
    }

    @Sample
    @TestDatabase(Kind.POSTGRESQL)
    static class PostgresSample extends ClassScoped {
        PostgresSample(DataSource db) throws SQLException {
            super(db);
        }
    }

    @Sample
    @TestDatabase(Kind.MARIADB)
    static class MariaDbSample extends ClassScoped {
        MariaDbSample(DataSource db) throws SQLException {
            super(db);
        }
    }

    @Sample
    static class BothKindsSample {
        @Test
        void both(@TestDatabase(Kind.POSTGRESQL) DataSource pg, @TestDatabase(Kind.MARIADB) DataSource maria) throws SQLException {
            HOMES_BY_KIND.put(Kind.POSTGRESQL, Sql.home(pg));
            HOMES_BY_KIND.put(Kind.MARIADB, Sql.home(maria));
            assertTrue(Sql.column(pg, "SELECT version()").get(0).contains("PostgreSQL"));
            assertTrue(Sql.column(maria, "SELECT version()").get(0).contains("MariaDB"));
        }
    }

    @Sample
    static class UnannotatedSample {
        @Test
        void unannotated(@TestDatabase(Kind.POSTGRESQL) DataSource pg, DataSource other) {
        }

        @org.junit.jupiter.api.AfterEach
        void record(@TestDatabase(Kind.POSTGRESQL) DataSource pg) throws SQLException {
            HOMES_BY_KIND.put(Kind.POSTGRESQL, Sql.home(pg));
        }
    }
}
