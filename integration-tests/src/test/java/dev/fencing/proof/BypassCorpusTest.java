package dev.fencing.proof;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.UnfenceableStatementException;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.proof.Corpus.Entry;
import dev.fencing.proof.Corpus.Expect;
import dev.fencing.proof.Corpus.Target;
import dev.fencing.testing.TestDatabase;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.mariadb.jdbc.MariaDbDataSource;
import org.opentest4j.AssertionFailedError;

import javax.sql.DataSource;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Runs every entry of the bypass corpus ({@code bypass-corpus.tsv}; its header documents the
 * format) on each of its databases three times through {@link FencingDataSource}: with no fence,
 * with a stale fence and with the current fence. Each run is checked in the database by reading
 * both fenced tables before and after.
 *
 * <p>Whatever an entry is expected to do, no run may make an <em>unfenced write</em>: a change of
 * a fenced table with no fence in scope, a change or delete of an existing row under a stale
 * fence, a new row under a stale fence that does not carry that fence, or a changed row under
 * the current fence that does not carry it. New rows inserted under a stale fence, carrying it,
 * are the documented limit of row mode and are counted apart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BypassCorpusTest {

    static final long ROW_FENCE = 10;
    static final long STALE = 5;
    static final long CURRENT = 20;

    enum Run { NO_FENCE, STALE_FENCE, CURRENT_FENCE }

    /** One database the corpus runs on. */
    static final class Database {
        final Target target;
        final String schema;
        final DataSource raw;
        final DataSource fenced;
        final Connection admin;

        Database(Target target, String schema, DataSource raw, DataSource fencedPath) throws SQLException {
            this.target = target;
            this.schema = schema;
            this.raw = raw;
            // FENCING_PROOF_CORPUS_UNFENCED=true runs the corpus without the driver: every FENCED entry must then fail.
            this.fenced = Boolean.parseBoolean(System.getenv("FENCING_PROOF_CORPUS_UNFENCED")) ? raw
                    : fencedPath;
            this.admin = raw.getConnection();
        }
    }

    final Map<Target, Database> databases = new EnumMap<>(Target.class);
    private final List<String> unfencedWrites = new ArrayList<>();
    private final Map<Expect, AtomicLong> casesByExpect = new EnumMap<>(Expect.class);
    private final Map<String, AtomicLong> outcomes = new TreeMap<>();
    private final AtomicLong staleInserts = new AtomicLong();
    private final AtomicLong cases = new AtomicLong();
    private final Map<String, Boolean> failedEntries = new ConcurrentHashMap<>();

    BypassCorpusTest(@TestDatabase(TestDatabase.Kind.POSTGRESQL) DataSource pg,
                     @TestDatabase(TestDatabase.Kind.MARIADB) DataSource maria) throws SQLException {
        databases.put(Target.PG, new Database(Target.PG, Db.home(pg), pg, fencedPath(pg, config(Db.home(pg)))));
        MariaDbDataSource scratch = (MariaDbDataSource) maria;
        String url = scratch.getUrl();
        // Several statements per string are part of the corpus; the riskier setting is the one to prove.
        MariaDbDataSource multi = new MariaDbDataSource(url + (url.contains("?") ? "&" : "?") + "allowMultiQueries=true");
        databases.put(Target.MARIA, new Database(Target.MARIA, Db.home(maria), multi, fencedPath(multi, config(Db.home(maria)))));
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:corpus_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        databases.put(Target.H2, new Database(Target.H2, "PUBLIC", h2, fencedPath(h2, config("PUBLIC"))));
    }

    /** The configuration the corpus runs under on the database whose schema is {@code schema}. */
    FencingConfig config(String schema) {
        return FencingConfig.builder().tables("orders", schema + ".payments").build();
    }

    @BeforeAll
    void createTables() throws SQLException {
        for (Database db : databases.values()) {
            String identity = db.target == Target.MARIA ? "BIGINT AUTO_INCREMENT PRIMARY KEY"
                    : "BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1000) PRIMARY KEY";
            String tail = db.target == Target.MARIA ? " AUTO_INCREMENT = 1000" : "";
            Db.execute(db.admin,
                    "CREATE TABLE orders (id " + identity + ", status VARCHAR(40), amount BIGINT, cid BIGINT, "
                            + "last_fence BIGINT NOT NULL DEFAULT 0)" + tail,
                    "CREATE TABLE payments (id BIGINT PRIMARY KEY, amount BIGINT, last_fence BIGINT NOT NULL DEFAULT 0)",
                    "CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(40))",
                    "CREATE TABLE audit (id BIGINT)");
        }
    }

    @AfterAll
    void closeConnections() throws SQLException {
        for (Database db : databases.values()) {
            db.admin.close();
        }
    }

    @TestFactory
    Stream<DynamicTest> corpus() {
        List<Entry> entries = Corpus.load();
        List<DynamicTest> tests = new ArrayList<>();
        for (Entry entry : entries) {
            for (Target target : entry.targets()) {
                tests.add(DynamicTest.dynamicTest(target.tag + " " + entry.id(), () -> check(databases.get(target), entry)));
            }
        }
        for (Target target : Target.values()) {
            tests.add(DynamicTest.dynamicTest("control " + target.tag + ": the raw path is caught",
                    () -> control(databases.get(target), entries)));
        }
        tests.add(DynamicTest.dynamicTest("zero unfenced writes", () -> summary(entries)));
        return tests.stream();
    }

    /** Entries of every database that the control replays through the raw data source. */
    private static final List<String> CONTROL = List.of("upd-plain", "upd-prepared", "del-plain", "ins-values",
            "batch-statements", "batch-prepared");

    /**
     * The control: some entries run through the raw data source (no driver) with no fence and a
     * stale fence. The checker must see unfenced writes in every one of those runs, or it could
     * not see them through the driver either.
     */
    void control(Database db, List<Entry> entries) throws Exception {
        int runs = 0;
        for (Entry entry : entries) {
            if (!CONTROL.contains(entry.id()) || !entry.targets().contains(db.target)) {
                continue;
            }
            for (Run run : List.of(Run.NO_FENCE, Run.STALE_FENCE)) {
                reset(db);
                Map<String, Map<String, Object>> before = snapshot(db.admin);
                Throwable thrown = execute(controlPath(db), db.schema, entry,
                        run == Run.NO_FENCE ? OptionalLong.empty() : OptionalLong.of(STALE));
                Outcome outcome = new Outcome(run, thrown, before, snapshot(db.admin));
                List<String> caught = unfencedWrites(outcome);
                if (thrown != null || caught.isEmpty()) {
                    throw new AssertionFailedError("control " + entry + " run " + run + " through the raw data source: expected "
                            + "unfenced writes to be detected, found " + caught + "; thrown " + Db.describe(thrown));
                }
                runs++;
            }
        }
        if (runs != 2 * CONTROL.size()) {
            throw new AssertionFailedError("the control ran " + runs + " runs, expected " + 2 * CONTROL.size());
        }
        System.out.println("CORPUS control " + db.target.tag + ": " + runs + " runs through the raw data source, "
                + "unfenced writes detected in all " + runs);
    }

    /** The data source the corpus runs through: {@code raw} fenced with {@code config}. */
    DataSource fencedPath(DataSource raw, FencingConfig config) {
        return new FencingDataSource(raw, config);
    }

    /** Where the control sends its entries: the raw data source. */
    DataSource controlPath(Database db) {
        return db.raw;
    }

    private void summary(List<Entry> entries) {
        Map<Expect, Long> entriesByExpect = new EnumMap<>(Expect.class);
        for (Entry entry : entries) {
            entriesByExpect.merge(entry.expect(), 1L, Long::sum);
        }
        System.out.println("CORPUS entries=" + entries.size() + " " + entriesByExpect + " cases(entry x database)=" + cases
                + " " + casesByExpect + " runs=" + cases.get() * 3 + " unfencedWrites=" + unfencedWrites.size()
                + " staleInsertsOfNewRows(documented limit)=" + staleInserts + " failedCases=" + failedEntries.size());
        outcomes.forEach((key, count) -> System.out.println("CORPUS outcome " + key + " = " + count));
        if (!unfencedWrites.isEmpty()) {
            throw new AssertionFailedError(unfencedWrites.size() + " unfenced writes:\n" + String.join("\n", unfencedWrites));
        }
        if (!failedEntries.isEmpty()) {
            throw new AssertionFailedError("cases that did not behave as the corpus expects: " + failedEntries.keySet());
        }
    }

    /** A row of a fenced table, keyed "table#id". */
    private static Map<String, Map<String, Object>> snapshot(Connection admin) throws SQLException {
        Map<String, Map<String, Object>> rows = new TreeMap<>();
        for (Map<String, Object> row : Db.rows(admin, "SELECT id, status, amount, cid, last_fence FROM orders")) {
            rows.put("orders#" + row.get("id"), row);
        }
        for (Map<String, Object> row : Db.rows(admin, "SELECT id, amount, last_fence FROM payments")) {
            rows.put("payments#" + row.get("id"), row);
        }
        return rows;
    }

    static void reset(Database db) throws SQLException {
        String[] statements = {
                "DELETE FROM orders", "DELETE FROM payments", "DELETE FROM customers", "DELETE FROM audit",
                "INSERT INTO orders (id, status, amount, cid, last_fence) VALUES (1, 'pending', 100, 1, " + ROW_FENCE + "), "
                        + "(2, 'pending', 200, 1, " + ROW_FENCE + "), (3, 'pending', 300, 2, " + ROW_FENCE + ")",
                "INSERT INTO payments (id, amount, last_fence) VALUES (1, 50, " + ROW_FENCE + "), (2, 60, " + ROW_FENCE + ")",
                "INSERT INTO customers (id, name) VALUES (1, 'ann'), (2, 'bob')"};
        if (db.target == Target.H2) {
            Db.execute(db.admin, statements);
        } else {
            Db.execute(db.admin, String.join(";\n", statements));
        }
    }

    record Outcome(Run run, Throwable thrown, Map<String, Map<String, Object>> before,
                           Map<String, Map<String, Object>> after) {
        boolean changed() {
            return !before.equals(after);
        }

        String rows() {
            return "before " + before.values() + " after " + after.values();
        }
    }

    private void check(Database db, Entry entry) throws Exception {
        cases.incrementAndGet();
        casesByExpect.computeIfAbsent(entry.expect(), e -> new AtomicLong()).incrementAndGet();
        Map<Run, Outcome> outcomesByRun = new EnumMap<>(Run.class);
        for (Run run : Run.values()) {
            reset(db);
            Map<String, Map<String, Object>> before = snapshot(db.admin);
            Throwable thrown = execute(db, entry, run);
            Map<String, Map<String, Object>> after = snapshot(db.admin);
            Outcome outcome = new Outcome(run, thrown, before, after);
            outcomesByRun.put(run, outcome);
            recordUnfencedWrites(db, entry, outcome);
            String kind = thrown == null ? (outcome.changed() ? "applied" : "no change")
                    : thrown.getClass().getSimpleName();
            outcomes.computeIfAbsent(entry.expect() + " / " + run + " -> " + kind, k -> new AtomicLong()).incrementAndGet();
        }
        try {
            expectations(entry, outcomesByRun);
        } catch (AssertionError e) {
            failedEntries.put(db.target.tag + " " + entry.id(), true);
            throw e;
        }
    }

    private void recordUnfencedWrites(Database db, Entry entry, Outcome outcome) {
        List<String> problems = unfencedWrites(outcome);
        if (outcome.run() == Run.STALE_FENCE) {
            staleInserts.addAndGet(outcome.after().keySet().stream().filter(key -> !outcome.before().containsKey(key)).count());
        }
        for (String problem : problems) {
            String text = "UNFENCED WRITE " + db.target.tag + " " + entry + " run " + outcome.run() + ": " + problem
                    + "\n    sql: " + entry.sql(db.schema).replace("\n", "\\n").replace("\r", "\\r")
                    + "\n    thrown: " + Db.describe(outcome.thrown());
            synchronized (unfencedWrites) {
                unfencedWrites.add(text);
            }
            System.out.println(text);
        }
        if (!problems.isEmpty()) {
            throw new AssertionFailedError(problems.get(0) + " in " + entry + " on " + db.target.tag);
        }
    }

    /**
     * The unfenced writes one run made, judged from the rows alone: with no fence, any change;
     * with a stale fence, any change or delete of an existing row, or a new row that does not
     * carry the stale fence; with the current fence, a new or changed row that does not carry it.
     */
    static List<String> unfencedWrites(Outcome outcome) {
        List<String> problems = new ArrayList<>();
        Map<String, Map<String, Object>> before = outcome.before();
        Map<String, Map<String, Object>> after = outcome.after();
        switch (outcome.run()) {
            case NO_FENCE -> {
                if (outcome.changed()) {
                    problems.add("changed fenced rows with no fence in scope: " + outcome.rows());
                }
            }
            case STALE_FENCE -> {
                for (Map.Entry<String, Map<String, Object>> row : before.entrySet()) {
                    Map<String, Object> now = after.get(row.getKey());
                    if (now == null) {
                        problems.add("deleted " + row.getKey() + " under a stale fence");
                    } else if (!now.equals(row.getValue())) {
                        problems.add("changed " + row.getKey() + " under a stale fence: " + row.getValue() + " -> " + now);
                    }
                }
                for (Map.Entry<String, Map<String, Object>> row : after.entrySet()) {
                    if (!before.containsKey(row.getKey()) && !Objects.equals(row.getValue().get("last_fence"), STALE)) {
                        problems.add("inserted " + row.getKey() + " under a stale fence without that fence: " + row.getValue());
                    }
                }
            }
            case CURRENT_FENCE -> {
                for (Map.Entry<String, Map<String, Object>> row : after.entrySet()) {
                    Map<String, Object> was = before.get(row.getKey());
                    if (!row.getValue().equals(was) && !Objects.equals(row.getValue().get("last_fence"), CURRENT)) {
                        problems.add((was == null ? "inserted " : "changed ") + row.getKey()
                                + " without recording the current fence: " + was + " -> " + row.getValue());
                    }
                }
            }
            default -> throw new AssertionError(outcome.run());
        }
        return problems;
    }

    /** Checks what each run of {@code entry} did against what the corpus expects of it. */
    void expectations(Entry entry, Map<Run, Outcome> runs) {
        expect(entry, runs);
    }

    private static void expect(Entry entry, Map<Run, Outcome> runs) {
        Outcome none = runs.get(Run.NO_FENCE);
        Outcome stale = runs.get(Run.STALE_FENCE);
        Outcome current = runs.get(Run.CURRENT_FENCE);
        switch (entry.expect()) {
            case FENCED, INSERT -> {
                require(Db.find(none.thrown(), MissingFenceException.class) != null, entry, none, "expected MissingFenceException");
                require(stale.thrown() == null || Db.find(stale.thrown(), StaleFenceException.class) != null, entry, stale,
                        "expected a StaleFenceException or no exception");
                if (entry.expect() == Expect.FENCED) {
                    require(!stale.changed(), entry, stale, "expected no change under a stale fence");
                }
                require(current.thrown() == null, entry, current, "expected the write to complete under the current fence");
                require(current.changed(), entry, current, "expected the write to change rows under the current fence");
            }
            case REFUSED -> {
                for (Outcome outcome : runs.values()) {
                    // A batch with no fence is refused at its first write with MissingFenceException,
                    // before it reaches the statement that cannot be fenced; nothing is sent either way.
                    boolean batchWithoutFence = outcome.run() == Run.NO_FENCE
                            && (entry.mode() == Corpus.Mode.BATCH || entry.mode() == Corpus.Mode.BATCH_LARGE)
                            && Db.find(outcome.thrown(), MissingFenceException.class) != null;
                    require(batchWithoutFence || Db.find(outcome.thrown(), UnfenceableStatementException.class) != null,
                            entry, outcome, "expected UnfenceableStatementException");
                    require(!outcome.changed(), entry, outcome, "expected no change");
                }
            }
            case BLOCKED -> {
                for (Outcome outcome : runs.values()) {
                    require(outcome.thrown() instanceof SQLException, entry, outcome, "expected an SQLException");
                    require(!outcome.changed(), entry, outcome, "expected no change");
                }
            }
            default -> throw new AssertionError(entry.expect());
        }
    }

    private static void require(boolean condition, Entry entry, Outcome outcome, String message) {
        if (!condition) {
            AssertionFailedError error = new AssertionFailedError(entry + " run " + outcome.run() + ": " + message + "; thrown "
                    + Db.describe(outcome.thrown()) + "; " + outcome.rows());
            if (outcome.thrown() != null) {
                error.initCause(outcome.thrown());
            }
            throw error;
        }
    }

    @SuppressWarnings("try")
    static Throwable execute(DataSource fenced, String schema, Entry entry, OptionalLong fence) {
        try (Fence.Scope scope = fence.isPresent() ? Fence.enter(fence.getAsLong()) : null;
             Connection connection = fenced.getConnection()) {
            if (entry.session() != null) {
                Db.execute(connection, entry.session());
            }
            run(connection, entry, schema);
            return null;
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable thrown) {
            return thrown;
        }
    }

    private static Throwable execute(Database db, Entry entry, Run run) {
        OptionalLong fence = switch (run) {
            case NO_FENCE -> OptionalLong.empty();
            case STALE_FENCE -> OptionalLong.of(STALE);
            case CURRENT_FENCE -> OptionalLong.of(CURRENT);
        };
        return execute(db.fenced, db.schema, entry, fence);
    }

    private static void run(Connection connection, Entry entry, String schema) throws SQLException {
        String sql = entry.sql(schema);
        List<Object> parameters = entry.parameterRows().isEmpty() ? List.of() : entry.parameterRows().get(0);
        switch (entry.mode()) {
            case STATEMENT -> {
                try (Statement statement = connection.createStatement()) {
                    statement.executeUpdate(sql);
                }
            }
            case STATEMENT_EXECUTE -> {
                try (Statement statement = connection.createStatement()) {
                    drain(statement, statement.execute(sql));
                }
            }
            case STATEMENT_LARGE -> {
                try (Statement statement = connection.createStatement()) {
                    statement.executeLargeUpdate(sql);
                }
            }
            case STATEMENT_QUERY -> {
                try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
                    drain(rows);
                }
            }
            case STATEMENT_KEYS -> {
                try (Statement statement = connection.createStatement()) {
                    statement.executeUpdate(sql, Statement.RETURN_GENERATED_KEYS);
                    try (ResultSet keys = statement.getGeneratedKeys()) {
                        drain(keys);
                    }
                }
            }
            case STATEMENT_COLUMNS -> {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(sql, new String[] {"id"});
                    try (ResultSet keys = statement.getGeneratedKeys()) {
                        drain(keys);
                    }
                }
            }
            case PREPARED -> {
                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                    bind(statement, parameters);
                    statement.executeUpdate();
                }
            }
            case PREPARED_EXECUTE -> {
                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                    bind(statement, parameters);
                    drain(statement, statement.execute());
                }
            }
            case PREPARED_LARGE -> {
                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                    bind(statement, parameters);
                    statement.executeLargeUpdate();
                }
            }
            case PREPARED_QUERY -> {
                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                    bind(statement, parameters);
                    try (ResultSet rows = statement.executeQuery()) {
                        drain(rows);
                    }
                }
            }
            case PREPARED_KEYS -> {
                try (PreparedStatement statement = connection.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
                    bind(statement, parameters);
                    statement.executeUpdate();
                    try (ResultSet keys = statement.getGeneratedKeys()) {
                        drain(keys);
                    }
                }
            }
            case CALL -> {
                try (CallableStatement statement = connection.prepareCall(sql)) {
                    bind(statement, parameters);
                    statement.executeUpdate();
                }
            }
            case BATCH, BATCH_LARGE -> {
                try (Statement statement = connection.createStatement()) {
                    for (String part : entry.statements(schema)) {
                        statement.addBatch(part);
                    }
                    if (entry.mode() == Corpus.Mode.BATCH) {
                        statement.executeBatch();
                    } else {
                        statement.executeLargeBatch();
                    }
                }
            }
            case PBATCH -> {
                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                    for (List<Object> row : entry.parameterRows()) {
                        bind(statement, row);
                        statement.addBatch();
                    }
                    statement.executeBatch();
                }
            }
            case VIA_GETCONNECTION -> {
                try (Statement first = connection.createStatement();
                     Statement statement = first.getConnection().createStatement()) {
                    statement.executeUpdate(sql);
                }
            }
            case VIA_UNWRAP -> {
                try (Statement statement = connection.unwrap(Connection.class).createStatement()) {
                    statement.executeUpdate(sql);
                }
            }
            case VIA_METADATA -> {
                try (Statement statement = connection.getMetaData().getConnection().createStatement()) {
                    statement.executeUpdate(sql);
                }
            }
            case RS_UPDATE, RS_INSERT, RS_DELETE -> {
                try (Statement statement = connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_UPDATABLE);
                     ResultSet rows = statement.executeQuery(sql)) {
                    switch (entry.mode()) {
                        case RS_UPDATE -> {
                            rows.next();
                            rows.updateString("status", "rs");
                            rows.updateRow();
                        }
                        case RS_INSERT -> {
                            rows.moveToInsertRow();
                            rows.updateLong("id", 77);
                            rows.updateString("status", "rs");
                            rows.insertRow();
                        }
                        default -> {
                            rows.next();
                            rows.deleteRow();
                        }
                    }
                }
            }
            case PREPARED_STRING -> {
                try (PreparedStatement statement = connection.prepareStatement("SELECT 1")) {
                    statement.executeUpdate(sql);
                }
            }
            case PREPARED_ADDBATCH_STRING -> {
                try (PreparedStatement statement = connection.prepareStatement("SELECT 1")) {
                    statement.addBatch(sql);
                    statement.executeBatch();
                }
            }
            default -> throw new AssertionError(entry.mode());
        }
    }

    private static void bind(PreparedStatement statement, List<Object> values) throws SQLException {
        for (int i = 0; i < values.size(); i++) {
            Object value = values.get(i);
            if (value == null) {
                statement.setNull(i + 1, Types.VARCHAR);
            } else if (value instanceof Long number) {
                statement.setLong(i + 1, number);
            } else {
                statement.setString(i + 1, (String) value);
            }
        }
    }

    private static void drain(ResultSet rows) throws SQLException {
        while (rows.next()) {
            rows.getObject(1);
        }
    }

    /** Reads every result of an execute, so that every statement of a multi-statement string has run. */
    private static void drain(Statement statement, boolean firstIsResultSet) throws SQLException {
        boolean resultSet = firstIsResultSet;
        for (int guard = 0; guard < 100; guard++) {
            if (resultSet) {
                try (ResultSet rows = statement.getResultSet()) {
                    drain(rows);
                }
            } else if (statement.getUpdateCount() == -1) {
                return;
            }
            resultSet = statement.getMoreResults();
        }
    }
}
