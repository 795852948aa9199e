package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The forms whose count cannot show what their fenced write did (a write in a data-modifying CTE,
 * a text of several statements, an upsert with a WHERE of its own), guard off: a holder whose
 * fence is older than one a newer holder already applied gets {@link StaleFenceException} after
 * the statement ran (its other effects stand, and the message says so), the fenced row read back
 * raw unchanged; with the current fence the write applies and nothing is raised; and a statement
 * whose WHERE legitimately matches nothing raises nothing. PostgreSQL in both query modes,
 * MariaDB with {@code allowMultiQueries}, H2 where it has the form.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BlockedStaleWritesTest {

    private static final long NEWER = 10;
    private static final long CURRENT = 20;
    private static final long STALE = 5;

    enum Db { POSTGRESQL, POSTGRESQL_SIMPLE, MARIADB, H2 }

    private static final Set<Db> POSTGRES = Set.of(Db.POSTGRESQL, Db.POSTGRESQL_SIMPLE);
    private static final Set<Db> SEVERAL = Set.of(Db.POSTGRESQL, Db.POSTGRESQL_SIMPLE, Db.MARIADB, Db.H2);

    /** How a form is executed. */
    enum Call {
        /** executeQuery, only the first row read (as code reading a count does). */
        QUERY_FIRST_ROW,
        /** executeQuery, every row read. */
        QUERY_ALL_ROWS,
        STATEMENT_EXECUTE,
        STATEMENT_UPDATE,
        PREPARED_EXECUTE,
        PREPARED_UPDATE
    }

    /**
     * @param check     a query of the raw database whose rows (joined by {@code ,}) show the form's effect
     * @param current   what {@code check} reads after the form ran with the current fence
     * @param stale     what it reads after the form ran with a stale fence (rows of unfenced tables,
     *                  and new rows, stand)
     */
    record Form(String name, Set<Db> on, Call call, String sql, Object[] parameters, String check, String current,
                String stale) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final String ROW1 = "SELECT CONCAT(status, ':', amount, ':', last_fence) FROM orders WHERE id = 1";
    private static final String ROWS = "SELECT CONCAT(id, ':', status, ':', amount, ':', last_fence) FROM orders ORDER BY id";
    private static final String NOTES = "SELECT CONCAT(id, ':', body) FROM notes ORDER BY id";

    static List<Form> forms() {
        return List.of(
                new Form("update in a CTE, one row read", POSTGRES, Call.QUERY_FIRST_ROW,
                        "WITH u AS (UPDATE orders SET amount = ? WHERE id = ? RETURNING id) SELECT count(*) FROM u",
                        new Object[] {7, 1}, ROW1, "paid:7:20", "paid:100:10"),
                new Form("update in a CTE, key conjunct beside a business predicate", POSTGRES, Call.QUERY_ALL_ROWS,
                        "WITH u AS (UPDATE orders SET status = 'shipped' WHERE id = 1 AND status = 'paid' RETURNING id)"
                                + " SELECT id FROM u", new Object[0], ROW1, "shipped:100:20", "paid:100:10"),
                new Form("delete in a CTE feeding an insert", POSTGRES, Call.STATEMENT_EXECUTE,
                        "WITH d AS (DELETE FROM orders WHERE id = 1 RETURNING id) INSERT INTO notes (id, body)"
                                + " SELECT id + 100, 'deleted' FROM d", new Object[0],
                        ROWS + "|" + NOTES, "2:paid:200:10|1:note,101:deleted", "1:paid:100:10,2:paid:200:10|1:note"),
                new Form("upsert in a CTE", POSTGRES, Call.QUERY_FIRST_ROW,
                        "WITH u AS (INSERT INTO orders (id, status, amount) VALUES (?, 'upserted', 1) ON CONFLICT (id)"
                                + " DO UPDATE SET status = EXCLUDED.status RETURNING id) SELECT id FROM u",
                        new Object[] {1}, ROW1, "upserted:100:20", "paid:100:10"),
                new Form("several statements, the first unfenced", SEVERAL, Call.STATEMENT_EXECUTE,
                        "UPDATE notes SET body = 'touched' WHERE id = 1; UPDATE orders SET amount = 7 WHERE id = 1",
                        new Object[0], ROW1 + "|" + NOTES, "paid:7:20|1:touched", "paid:100:10|1:touched"),
                new Form("several statements, both fenced, one stale row each", SEVERAL, Call.STATEMENT_EXECUTE,
                        "UPDATE orders SET amount = 7 WHERE id = 2; DELETE FROM orders WHERE id = 1",
                        new Object[0], ROWS, "2:paid:7:20", "1:paid:100:10,2:paid:200:10"),
                new Form("several statements prepared", SEVERAL, Call.PREPARED_EXECUTE,
                        "UPDATE orders SET amount = ? WHERE id = ?; UPDATE notes SET body = ? WHERE id = 1",
                        new Object[] {7, 1, "touched"}, ROW1 + "|" + NOTES, "paid:7:20|1:touched",
                        "paid:100:10|1:touched"),
                new Form("upsert with its own WHERE", POSTGRES, Call.PREPARED_UPDATE,
                        "INSERT INTO orders AS o (id, status, amount) VALUES (?, ?, ?) ON CONFLICT (id)"
                                + " DO UPDATE SET amount = EXCLUDED.amount WHERE o.status <> 'closed'",
                        new Object[] {1, "x", 7}, ROW1, "paid:7:20", "paid:100:10"),
                new Form("upsert with its own WHERE, one row new", POSTGRES, Call.STATEMENT_UPDATE,
                        "INSERT INTO orders AS o (id, status, amount) VALUES (1, 'x', 7), (9, 'new', 9) ON CONFLICT (id)"
                                + " DO UPDATE SET amount = EXCLUDED.amount WHERE o.amount > 0",
                        new Object[0], ROWS, "1:paid:7:20,2:paid:200:10,9:new:9:20",
                        "1:paid:100:10,2:paid:200:10,9:new:9:5"),
                new Form("upsert with its own WHERE, returning", POSTGRES, Call.QUERY_ALL_ROWS,
                        "INSERT INTO orders AS o (id, status, amount) VALUES (?, 'x', 7) ON CONFLICT (id)"
                                + " DO UPDATE SET amount = EXCLUDED.amount WHERE o.amount > 0 RETURNING id",
                        new Object[] {1}, ROW1, "paid:7:20", "paid:100:10"));
    }

    /** Forms whose WHERE matches nothing (no such row, or the business predicate misses an older row). */
    static List<Form> misses() {
        return List.of(
                new Form("update in a CTE, no such row", POSTGRES, Call.QUERY_FIRST_ROW,
                        "WITH u AS (UPDATE orders SET amount = ? WHERE id = ? RETURNING id) SELECT count(*) FROM u",
                        new Object[] {7, 404}, ROWS, "", ""),
                new Form("several statements, business predicate misses", SEVERAL, Call.STATEMENT_EXECUTE,
                        "UPDATE notes SET body = 'touched' WHERE id = 1; UPDATE orders SET amount = 7 WHERE id = 1"
                                + " AND status = 'pending'", new Object[0], ROWS + "|" + NOTES, "", ""),
                new Form("several statements prepared, no such row", SEVERAL, Call.PREPARED_EXECUTE,
                        "UPDATE orders SET amount = ? WHERE id = ?; DELETE FROM orders WHERE id = ?",
                        new Object[] {7, 404, 405}, ROWS, "", ""),
                new Form("upsert whose own WHERE is false", POSTGRES, Call.PREPARED_UPDATE,
                        "INSERT INTO orders AS o (id, status, amount) VALUES (?, ?, ?) ON CONFLICT (id)"
                                + " DO UPDATE SET amount = EXCLUDED.amount WHERE o.status = 'closed'",
                        new Object[] {1, "x", 7}, ROWS, "", ""));
    }

    /** Forms whose fenced write names no row by key: not read after they ran, so a stale fence changes nothing quietly. */
    static List<Form> unkeyed() {
        return List.of(
                new Form("update in a CTE without a key", POSTGRES, Call.QUERY_FIRST_ROW,
                        "WITH u AS (UPDATE orders SET amount = ? WHERE amount > ? RETURNING id) SELECT count(*) FROM u",
                        new Object[] {7, 0}, ROWS, "1:paid:7:20,2:paid:7:20", "1:paid:100:10,2:paid:200:10"),
                new Form("several statements without a key", SEVERAL, Call.STATEMENT_EXECUTE,
                        "UPDATE notes SET body = 'touched' WHERE id = 1; UPDATE orders SET amount = 7 WHERE amount > 0",
                        new Object[0], ROWS + "|" + NOTES, "1:paid:7:20,2:paid:7:20|1:touched",
                        "1:paid:100:10,2:paid:200:10|1:touched"));
    }

    static Stream<Arguments> unkeyedCases() {
        return casesOf(unkeyed());
    }

    static Stream<Arguments> cases() {
        return casesOf(forms());
    }

    static Stream<Arguments> missCases() {
        return casesOf(misses());
    }

    private static Stream<Arguments> casesOf(List<Form> forms) {
        List<Arguments> cases = new ArrayList<>();
        for (Db db : Db.values()) {
            for (Form form : forms) {
                if (form.on.contains(db)) {
                    cases.add(Arguments.of(db, form));
                }
            }
        }
        return cases.stream();
    }

    private final DataSource postgres;
    private final DataSource postgresSimple;
    private final DataSource mariaDb;
    private final DataSource h2 = H2.database();

    BlockedStaleWritesTest(@TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource postgres,
                           @TestDatabase(TestDatabase.Kind.MARIADB) DataSource mariaDb) throws SQLException {
        this.postgres = postgres;
        PGSimpleDataSource simple = new PGSimpleDataSource();
        simple.setURL(ScratchAreas.url(postgres) + "&preferQueryMode=simple");
        this.postgresSimple = simple;
        String url = ScratchAreas.url(mariaDb);
        this.mariaDb = new MariaDbDataSource(url + (url.contains("?") ? "&" : "?") + "allowMultiQueries=true");
    }

    private DataSource raw(Db db) {
        return switch (db) {
            case POSTGRESQL -> postgres;
            case POSTGRESQL_SIMPLE -> postgresSimple;
            case MARIADB -> mariaDb;
            case H2 -> h2;
        };
    }

    private FencingDataSource fenced(Db db) {
        return new FencingDataSource(raw(db), FencingConfig.builder().tables("orders").build());
    }

    /** Orders 1 and 2 (pending), then a newer holder's write through the driver: both paid under fence 10. */
    @BeforeEach
    void newerHolderWroteFirst() throws SQLException {
        for (DataSource raw : List.of(postgres, mariaDb, h2)) {
            try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS orders");
                statement.execute("DROP TABLE IF EXISTS notes");
                statement.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), amount BIGINT,"
                        + " last_fence BIGINT NOT NULL DEFAULT 0)");
                statement.execute("CREATE TABLE notes (id BIGINT PRIMARY KEY, body VARCHAR(20))");
                statement.execute("INSERT INTO orders (id, status, amount) VALUES (1, 'pending', 100), (2, 'pending', 200)");
                statement.execute("INSERT INTO notes (id, body) VALUES (1, 'note')");
            }
        }
        for (Db db : List.of(Db.POSTGRESQL, Db.MARIADB, Db.H2)) {
            try (Connection connection = fenced(db).getConnection(); Statement statement = connection.createStatement();
                 Fence.Scope ignored = Fence.enter(NEWER)) {
                assertThat(statement.executeUpdate("UPDATE orders SET status = 'paid' WHERE id IN (1, 2)")).isEqualTo(2);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aStaleHolderLearnsItIsStaleAndItsWriteChangedNothing(Db db, Form form) throws SQLException {
        Throwable thrown;
        try (Fence.Scope ignored = Fence.enter(STALE)) {
            thrown = catchThrowable(() -> run(db, form));
        }

        assertThat(thrown).isInstanceOf(StaleFenceException.class);
        StaleFenceException stale = (StaleFenceException) thrown;
        assertThat(stale.attemptedFence()).isEqualTo(STALE);
        assertThat(stale.currentFence()).hasValue(NEWER);
        assertThat(stale.table()).isEqualTo("orders");
        assertThat(stale.getSQLState()).isEqualTo(StaleFenceException.SQL_STATE);
        if (!form.name.endsWith("returning")) {
            // read after the statement ran: the message says what stands (RETURNING is diagnosed by its count)
            assertThat(stale.getMessage()).contains("other effects stand");
        }
        assertThat(read(db, form.check)).isEqualTo(form.stale);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void theCurrentFenceAppliesTheWriteAndRaisesNothing(Db db, Form form) throws SQLException {
        try (Fence.Scope ignored = Fence.enter(CURRENT)) {
            run(db, form);
        }

        assertThat(read(db, form.check)).isEqualTo(form.current);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("missCases")
    void aWhereThatMatchesNothingRaisesNothing(Db db, Form form) throws SQLException {
        String before = read(db, ROWS);
        try (Fence.Scope ignored = Fence.enter(CURRENT)) {
            run(db, form);
        }

        assertThat(read(db, ROWS)).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("unkeyedCases")
    void aFormThatNamesNoRowByKeyStaysAsItWas(Db db, Form form) throws SQLException {
        try (Fence.Scope ignored = Fence.enter(STALE)) {
            run(db, form);
        }
        assertThat(read(db, form.check)).isEqualTo(form.stale);

        try (Fence.Scope ignored = Fence.enter(CURRENT)) {
            run(db, form);
        }
        assertThat(read(db, form.check)).isEqualTo(form.current);
    }

    private void run(Db db, Form form) throws SQLException {
        try (Connection connection = fenced(db).getConnection()) {
            switch (form.call) {
                case QUERY_FIRST_ROW, QUERY_ALL_ROWS -> {
                    try (PreparedStatement statement = connection.prepareStatement(form.sql)) {
                        FencedWriteFormsTest.bind(statement, form.parameters);
                        try (ResultSet rows = statement.executeQuery()) {
                            boolean more = rows.next();
                            while (more && form.call == Call.QUERY_ALL_ROWS) {
                                more = rows.next();
                            }
                        }
                    }
                }
                case STATEMENT_EXECUTE -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute(form.sql);
                    }
                }
                case STATEMENT_UPDATE -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.executeUpdate(form.sql);
                    }
                }
                case PREPARED_EXECUTE, PREPARED_UPDATE -> {
                    try (PreparedStatement statement = connection.prepareStatement(form.sql)) {
                        FencedWriteFormsTest.bind(statement, form.parameters);
                        if (form.call == Call.PREPARED_EXECUTE) {
                            statement.execute();
                        } else {
                            statement.executeUpdate();
                        }
                    }
                }
            }
        }
    }

    /** The rows of each {@code |}-separated query of the raw database, each query's rows joined by {@code ,}. */
    private String read(Db db, String queries) throws SQLException {
        List<String> parts = new ArrayList<>();
        try (Connection connection = raw(db).getConnection(); Statement statement = connection.createStatement()) {
            for (String query : queries.split("\\|")) {
                List<String> values = new ArrayList<>();
                try (ResultSet rows = statement.executeQuery(query)) {
                    while (rows.next()) {
                        values.add(rows.getString(1));
                    }
                }
                parts.add(String.join(",", values));
            }
        }
        return String.join("|", parts);
    }
}
