package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import dev.fencing.jdbc.FencingDataSource;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every write form the driver fences, on PostgreSQL and H2, each in three runs: with a current
 * fence (the write applies and changed rows record the fence), a stale fence (nothing changes;
 * {@link StaleFenceException} where the form's write is blocked: for CTE writes, several
 * statements and upserts with their own WHERE, read by key after the statement ran) and no fence
 * ({@link MissingFenceException}, nothing sent). Each run checks the rows in the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FencedWriteFormsTest {

    private static final long ROW_FENCE = 10;
    private static final long CURRENT = 20;
    private static final long STALE = 5;

    enum Db { POSTGRESQL, H2 }

    /** How a form is executed. */
    enum Call { PREPARED_UPDATE, PREPARED_LARGE_UPDATE, PREPARED_QUERY, STATEMENT_UPDATE, STATEMENT_EXECUTE, PREPARED_BATCH, STATEMENT_BATCH, GENERATED_KEYS }

    /** What a stale fence does to a form. */
    enum Stale {
        /** StaleFenceException, rows unchanged. */
        RAISES,
        /** No exception (the form blocks no write: ON CONFLICT DO NOTHING), rows unchanged. */
        SILENT,
        /** Applies: an INSERT of new rows has no newer fence to compare with (a documented limit of row mode). */
        INSERTS
    }

    record Form(String name, Db only, Call call, String sql, Object[][] parameters, Stale stale,
                String check, String expectedAfterCurrent) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static Form form(String name, Db only, Call call, String sql, Object[][] parameters, Stale stale,
                             String check, String expected) {
        return new Form(name, only, call, sql, parameters, stale, check, expected);
    }

    private static Object[][] rows(Object[]... rows) {
        return rows;
    }

    private static Object[] row(Object... values) {
        return values;
    }

    private static final String ROW1 = "SELECT status || ':' || last_fence FROM orders WHERE id = 1";

    static List<Form> forms() {
        List<Form> forms = new ArrayList<>();
        forms.add(form("update prepared", null, Call.PREPARED_UPDATE,
                "UPDATE orders SET status = ? WHERE id = ?", rows(row("paid", 1)), Stale.RAISES, ROW1, "paid:20"));
        forms.add(form("update large", null, Call.PREPARED_LARGE_UPDATE,
                "UPDATE orders SET status = ? WHERE id = ?", rows(row("paid", 1)), Stale.RAISES, ROW1, "paid:20"));
        forms.add(form("update plain statement with alias and comments", null, Call.STATEMENT_UPDATE,
                "/* pay */ UPDATE orders o SET status = 'paid' -- why\n WHERE o.id = 1", rows(), Stale.RAISES, ROW1, "paid:20"));
        forms.add(form("update lower-case quoted", Db.POSTGRESQL, Call.PREPARED_UPDATE,
                "UPDATE \"orders\" SET status = ? WHERE id = ?", rows(row("paid", 1)), Stale.RAISES, ROW1, "paid:20"));
        forms.add(form("update upper-case quoted", Db.H2, Call.PREPARED_UPDATE,
                "UPDATE \"ORDERS\" SET status = ? WHERE id = ?", rows(row("paid", 1)), Stale.RAISES, ROW1, "paid:20"));
        forms.add(form("update schema-qualified", null, Call.PREPARED_UPDATE,
                "UPDATE ${schema}.orders SET status = ? WHERE id = ?", rows(row("paid", 1)), Stale.RAISES, ROW1, "paid:20"));
        forms.add(form("update from join", Db.POSTGRESQL, Call.PREPARED_UPDATE,
                "UPDATE orders o SET status = c.name FROM customers c WHERE c.id = o.cid AND o.id = ?",
                rows(row(1)), Stale.RAISES, ROW1, "ann:20"));
        forms.add(form("update parameters before, inside and after the check, subquery", null, Call.PREPARED_UPDATE,
                "UPDATE orders SET amount = amount + ? WHERE id IN (SELECT id FROM orders WHERE cid = ?) AND status = ?",
                rows(row(5, 1, "pending")), Stale.RAISES,
                "SELECT amount || ':' || last_fence FROM orders WHERE id IN (1, 2) ORDER BY id", "105:20,205:20"));
        forms.add(form("update in-list and limit in subquery", null, Call.PREPARED_UPDATE,
                "UPDATE orders SET status = ? WHERE id IN (SELECT id FROM orders WHERE cid = ? AND id IN (?, ?) ORDER BY id LIMIT ?)",
                rows(row("lim", 1, 1, 2, 1)), Stale.RAISES,
                "SELECT status || ':' || last_fence FROM orders WHERE id IN (1, 2) ORDER BY id", "lim:20,pending:10"));
        forms.add(form("update returning with parameter", Db.POSTGRESQL, Call.PREPARED_QUERY,
                "UPDATE orders SET amount = ? WHERE id IN (?, ?) RETURNING id, amount + ?",
                rows(row(7, 1, 2, 1000)), Stale.RAISES,
                "SELECT amount || ':' || last_fence FROM orders WHERE id IN (1, 2) ORDER BY id", "7:20,7:20"));
        forms.add(form("delete", null, Call.PREPARED_UPDATE,
                "DELETE FROM orders WHERE id = ?", rows(row(3)), Stale.RAISES,
                "SELECT count(*) FROM orders WHERE id = 3", "0"));
        forms.add(form("delete using", Db.POSTGRESQL, Call.PREPARED_UPDATE,
                "DELETE FROM orders o USING customers c WHERE c.id = o.cid AND c.name = ?", rows(row("bob")), Stale.RAISES,
                "SELECT count(*) FROM orders WHERE id = 3", "0"));
        forms.add(form("delete returning", Db.POSTGRESQL, Call.PREPARED_QUERY,
                "DELETE FROM orders WHERE id = ? RETURNING id", rows(row(3)), Stale.RAISES,
                "SELECT count(*) FROM orders WHERE id = 3", "0"));
        forms.add(form("insert multi-row values", null, Call.PREPARED_UPDATE,
                "INSERT INTO orders (id, status, amount, cid) VALUES (?, 'new', 1, 1), (?, 'new', 2, 1)",
                rows(row(7, 8)), Stale.INSERTS, "SELECT id || ':' || last_fence FROM orders WHERE id IN (7, 8) ORDER BY id",
                "7:20,8:20"));
        forms.add(form("insert select", null, Call.STATEMENT_UPDATE,
                "INSERT INTO orders (id, status, amount, cid) SELECT id + 100, name, 0, id FROM customers",
                rows(), Stale.INSERTS, "SELECT id || ':' || last_fence FROM orders WHERE id > 100 ORDER BY id",
                "101:20,102:20"));
        forms.add(form("insert default values", null, Call.STATEMENT_UPDATE,
                "INSERT INTO orders DEFAULT VALUES", rows(), Stale.INSERTS,
                "SELECT id || ':' || last_fence FROM orders WHERE id >= 1000", "1000:20"));
        forms.add(form("insert generated keys", null, Call.GENERATED_KEYS,
                "INSERT INTO orders (status, amount) VALUES (?, ?)", rows(row("gk", 1)), Stale.INSERTS,
                "SELECT status || ':' || last_fence FROM orders WHERE id >= 1000", "gk:20"));
        forms.add(form("insert on conflict do nothing", Db.POSTGRESQL, Call.PREPARED_UPDATE,
                "INSERT INTO orders (id, status) VALUES (?, 'dup') ON CONFLICT DO NOTHING", rows(row(1)), Stale.SILENT,
                ROW1, "pending:10"));
        forms.add(form("insert on conflict do update", Db.POSTGRESQL, Call.PREPARED_UPDATE,
                "INSERT INTO orders (id, status) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status",
                rows(row(1, "upserted")), Stale.RAISES, ROW1, "upserted:20"));
        forms.add(form("insert on conflict do update where", Db.POSTGRESQL, Call.PREPARED_UPDATE,
                "INSERT INTO orders AS o (id, status) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status "
                        + "WHERE o.status = 'pending'",
                rows(row(1, "upserted")), Stale.RAISES, ROW1, "upserted:20"));
        forms.add(form("data-modifying cte", Db.POSTGRESQL, Call.PREPARED_QUERY,
                "WITH u AS (UPDATE orders SET status = ? WHERE id = ? RETURNING id) SELECT count(*) FROM u",
                rows(row("cte", 1)), Stale.RAISES, ROW1, "cte:20"));
        forms.add(form("data-modifying cte feeding an insert", Db.POSTGRESQL, Call.STATEMENT_EXECUTE,
                "WITH d AS (DELETE FROM orders WHERE id = 3 RETURNING id) INSERT INTO audit (id) SELECT id FROM d",
                rows(), Stale.RAISES, "SELECT (SELECT count(*) FROM orders WHERE id = 3) || ':' || (SELECT count(*) FROM audit)", "0:1"));
        forms.add(form("several statements in one string", Db.POSTGRESQL, Call.STATEMENT_EXECUTE,
                "UPDATE orders SET status = 'a' WHERE id = 1; UPDATE orders SET status = 'b' WHERE id = 2",
                rows(), Stale.RAISES, "SELECT status || ':' || last_fence FROM orders WHERE id IN (1, 2) ORDER BY id",
                "a:20,b:20"));
        forms.add(form("prepared batch", null, Call.PREPARED_BATCH,
                "UPDATE orders SET status = ? WHERE id = ?", rows(row("b1", 1), row("b2", 2)), Stale.RAISES,
                "SELECT status || ':' || last_fence FROM orders WHERE id IN (1, 2) ORDER BY id", "b1:20,b2:20"));
        forms.add(form("statement batch", null, Call.STATEMENT_BATCH,
                "UPDATE orders SET status = 'c1' WHERE id = 1\nDELETE FROM orders WHERE id = 3", rows(), Stale.RAISES,
                "SELECT (SELECT status || ':' || last_fence FROM orders WHERE id = 1) || ',' || (SELECT count(*) FROM orders WHERE id = 3)",
                "c1:20,0"));
        return forms;
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Db db : Db.values()) {
            for (Form form : forms()) {
                if (form.only == null || form.only == db) {
                    cases.add(Arguments.of(db, form));
                }
            }
        }
        return cases.stream();
    }

    private final DataSource postgresRaw;
    private final DataSource h2Raw = H2.database();

    FencedWriteFormsTest(@TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource postgres) {
        this.postgresRaw = postgres;
    }

    @BeforeEach
    void resetTables() throws SQLException {
        for (DataSource raw : List.of(postgresRaw, h2Raw)) {
            try (Connection connection = raw.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS orders");
                statement.execute("DROP TABLE IF EXISTS customers");
                statement.execute("DROP TABLE IF EXISTS audit");
                statement.execute("CREATE TABLE orders (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1000) PRIMARY KEY, "
                        + "status VARCHAR(20), amount BIGINT, cid BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)");
                statement.execute("CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(20))");
                statement.execute("CREATE TABLE audit (id BIGINT)");
                statement.execute("INSERT INTO orders (id, status, amount, cid, last_fence) VALUES "
                        + "(1, 'pending', 100, 1, 10), (2, 'pending', 200, 1, 10), (3, 'pending', 300, 2, 10)");
                statement.execute("INSERT INTO customers VALUES (1, 'ann'), (2, 'bob')");
            }
        }
    }

    private DataSource raw(Db db) {
        return db == Db.POSTGRESQL ? postgresRaw : h2Raw;
    }

    private String schema(Db db) {
        return db == Db.POSTGRESQL ? ScratchAreas.name(postgresRaw) : "PUBLIC";
    }

    private FencingDataSource fenced(Db db) {
        return new FencingDataSource(raw(db), FencingConfig.builder().tables("orders").build());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aCurrentFenceAppliesTheWriteAndRecordsTheFence(Db db, Form form) throws Exception {
        try (Fence.Scope ignored = Fence.enter(CURRENT)) {
            run(db, form);
        }

        assertThat(query(db, form.check)).isEqualTo(form.expectedAfterCurrent);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aStaleFenceChangesNothing(Db db, Form form) throws Exception {
        String before = snapshot(db);
        Throwable thrown;
        try (Fence.Scope ignored = Fence.enter(STALE)) {
            thrown = catchThrowable(() -> run(db, form));
        }

        switch (form.stale) {
            case RAISES -> {
                assertThat(thrown).isInstanceOf(StaleFenceException.class);
                StaleFenceException stale = (StaleFenceException) thrown;
                assertThat(stale.attemptedFence()).isEqualTo(STALE);
                assertThat(stale.getSQLState()).isEqualTo("ZF001");
                assertThat(snapshot(db)).isEqualTo(before);
            }
            case SILENT -> {
                assertThat(thrown).isNull();
                assertThat(snapshot(db)).isEqualTo(before);
            }
            case INSERTS -> {
                assertThat(thrown).isNull();
                assertThat(query(db, form.check)).isEqualTo(form.expectedAfterCurrent.replace(":20", ":5"));
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void noFenceIsRefusedBeforeAnythingIsSent(Db db, Form form) throws Exception {
        String before = snapshot(db);

        assertThatThrownBy(() -> run(db, form))
                .isInstanceOf(MissingFenceException.class)
                .hasMessageContaining("orders")
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("ZF002"));
        assertThat(snapshot(db)).isEqualTo(before);
    }

    private void run(Db db, Form form) throws SQLException {
        String sql = form.sql.replace("${schema}", schema(db));
        try (Connection connection = fenced(db).getConnection()) {
            switch (form.call) {
                case PREPARED_UPDATE, PREPARED_LARGE_UPDATE, PREPARED_QUERY -> {
                    try (PreparedStatement statement = connection.prepareStatement(sql)) {
                        bind(statement, form.parameters[0]);
                        if (form.call == Call.PREPARED_UPDATE) {
                            statement.executeUpdate();
                        } else if (form.call == Call.PREPARED_LARGE_UPDATE) {
                            statement.executeLargeUpdate();
                        } else {
                            try (ResultSet rows = statement.executeQuery()) {
                                while (rows.next()) {
                                    rows.getObject(1);
                                }
                            }
                        }
                    }
                }
                case GENERATED_KEYS -> {
                    try (PreparedStatement statement = connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
                        bind(statement, form.parameters[0]);
                        statement.executeUpdate();
                        try (ResultSet keys = statement.getGeneratedKeys()) {
                            assertThat(keys.next()).isTrue();
                            assertThat(keys.getStatement()).isSameAs(statement);
                        }
                    }
                }
                case STATEMENT_UPDATE -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.executeUpdate(sql);
                    }
                }
                case STATEMENT_EXECUTE -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute(sql);
                    }
                }
                case PREPARED_BATCH -> {
                    try (PreparedStatement statement = connection.prepareStatement(sql)) {
                        for (Object[] entry : form.parameters) {
                            bind(statement, entry);
                            statement.addBatch();
                        }
                        statement.executeBatch();
                    }
                }
                case STATEMENT_BATCH -> {
                    try (Statement statement = connection.createStatement()) {
                        for (String entry : sql.split("\n")) {
                            statement.addBatch(entry);
                        }
                        statement.executeBatch();
                    }
                }
            }
        }
    }

    /** Binds {@code values} to parameters 1..n with {@code setObject}; shared with {@link BlockedStaleWritesTest}. */
    static void bind(PreparedStatement statement, Object[] values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            statement.setObject(i + 1, values[i]);
        }
    }

    private String query(Db db, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection connection = raw(db).getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return String.join(",", values);
    }

    private String snapshot(Db db) throws SQLException {
        return query(db, "SELECT id || ':' || COALESCE(status, '-') || ':' || COALESCE(amount, -1) || ':' || last_fence "
                + "FROM orders ORDER BY id") + "|" + query(db, "SELECT count(*) FROM audit");
    }
}
