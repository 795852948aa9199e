package dev.fencing.proof;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.TestDatabase;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.opentest4j.AssertionFailedError;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Seeded SQL fuzzing ({@link SqlFuzzer}) through {@link FencingDataSource}, on H2 (many
 * iterations), PostgreSQL and MariaDB (fewer), each statement run with no fence, a stale fence or the
 * current fence. Two properties:
 * <ul>
 *   <li>no write to the fenced table is applied without passing the check: with no fence
 *       nothing changes; with fence {@code F} every updated or deleted row had a fence
 *       {@code <= F} and every updated or inserted row now carries {@code F} (PostgreSQL:
 *       row and TRUNCATE triggers audit every change; H2 and MariaDB: the table is read before and after);</li>
 *   <li>the driver throws nothing but {@link SQLException}s.</li>
 * </ul>
 * Statement {@code i} is generated from seed {@code base + i}; a failure prints that seed and the
 * SQL. The base seed is {@value #DEFAULT_SEED} unless {@code FENCING_FUZZ_SEED} is set;
 * {@code FENCING_FUZZ_H2_ITERATIONS}, {@code FENCING_FUZZ_PG_ITERATIONS} and
 * {@code FENCING_FUZZ_MARIADB_ITERATIONS} change the counts; MariaDB's multi-table writes (which
 * once went through unfenced when the fenced table was not named first) are generated unless
 * {@code FENCING_FUZZ_MARIADB_MULTITABLE=false}. Each database runs at least {@value #GUARANTEED_ITERATIONS} statements whatever the load; beyond
 * that a time budget ({@code FENCING_FUZZ_SECONDS}, default 8 s each) lets a slow machine run fewer
 * rather than a longer build. The count run is reported. No assertion depends on timing.
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FuzzTest {

    /** Statements each database runs whatever the time budget: the proof's floor. */
    static final long GUARANTEED_ITERATIONS = 150;

    static final long DEFAULT_SEED = 20_260_501L;
    private static final long ROW_FENCE = 10;
    private static final long STALE = 5;
    private static final long CURRENT = 20;
    private static final int RESET_EVERY = 40;
    /** FENCING_FUZZ_VERBOSE=true prints every statement and what it threw. */
    private static final boolean VERBOSE = Boolean.parseBoolean(System.getenv("FENCING_FUZZ_VERBOSE"));

    final DataSource pgScratch;
    final DataSource maria;
    final String mariaSchema;
    String pgSchema;
    JdbcDataSource h2;
    private Connection h2Keeper;

    FuzzTest(DataSource pgScratch, @TestDatabase(TestDatabase.Kind.MARIADB) DataSource mariaScratch) throws SQLException {
        this.pgScratch = pgScratch;
        this.mariaSchema = Db.home(mariaScratch);
        String url = ((org.mariadb.jdbc.MariaDbDataSource) mariaScratch).getUrl();
        this.maria = new org.mariadb.jdbc.MariaDbDataSource(url + (url.contains("?") ? "&" : "?") + "allowMultiQueries=true");
    }

    /** MariaDB multi-table writes are generated unless FENCING_FUZZ_MARIADB_MULTITABLE=false (see SqlFuzzer). */
    private static final boolean MARIADB_MULTI_TABLE = !"false".equalsIgnoreCase(System.getenv("FENCING_FUZZ_MARIADB_MULTITABLE"));

    private static long env(String name, long fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : Long.parseLong(value.trim());
    }

    static long baseSeed() {
        return env("FENCING_FUZZ_SEED", DEFAULT_SEED);
    }

    @BeforeAll
    void databases() throws SQLException {
        pgSchema = Db.home(pgScratch);
        h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:fuzz_" + UUID.randomUUID().toString().replace("-", "") + ";DB_CLOSE_DELAY=-1");
        h2Keeper = h2.getConnection();
        for (DataSource db : List.of(pgScratch, h2, maria)) {
            Db.execute(db,
                    "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(60), amount BIGINT, cid BIGINT, "
                            + "last_fence BIGINT NOT NULL DEFAULT 0)",
                    "CREATE TABLE orders_archive (id BIGINT PRIMARY KEY, status VARCHAR(60), amount BIGINT, cid BIGINT, "
                            + "last_fence BIGINT NOT NULL DEFAULT 0)",
                    "CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(60))");
        }
        Db.execute(pgScratch,
                "CREATE TABLE fuzz_audit (seq BIGSERIAL PRIMARY KEY, op TEXT NOT NULL, row_id BIGINT, old_fence BIGINT, new_fence BIGINT)",
                "CREATE FUNCTION fuzz_record() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                        + "IF TG_OP = 'TRUNCATE' THEN INSERT INTO " + pgSchema + ".fuzz_audit (op) VALUES ('TRUNCATE'); "
                        + "ELSIF TG_OP = 'INSERT' THEN INSERT INTO " + pgSchema + ".fuzz_audit (op, row_id, new_fence) "
                        + "VALUES ('INSERT', NEW.id, NEW.last_fence); "
                        + "ELSIF TG_OP = 'UPDATE' THEN INSERT INTO " + pgSchema + ".fuzz_audit (op, row_id, old_fence, new_fence) "
                        + "VALUES ('UPDATE', NEW.id, OLD.last_fence, NEW.last_fence); "
                        + "ELSE INSERT INTO " + pgSchema + ".fuzz_audit (op, row_id, old_fence) VALUES ('DELETE', OLD.id, OLD.last_fence); "
                        + "END IF; RETURN NULL; END $$",
                "CREATE TRIGGER orders_rows AFTER INSERT OR UPDATE OR DELETE ON orders FOR EACH ROW EXECUTE FUNCTION fuzz_record()",
                "CREATE TRIGGER orders_truncate AFTER TRUNCATE ON orders FOR EACH STATEMENT EXECUTE FUNCTION fuzz_record()");
    }

    @AfterAll
    void close() throws SQLException {
        h2Keeper.close();
    }

    @Test
    void h2() throws Exception {
        fuzz("h2", SqlFuzzer.Flavor.H2, h2, "PUBLIC", env("FENCING_FUZZ_H2_ITERATIONS", 3000), false);
    }

    @Test
    void postgres() throws Exception {
        fuzz("postgresql", SqlFuzzer.Flavor.POSTGRESQL, pgScratch, pgSchema, env("FENCING_FUZZ_PG_ITERATIONS", 700), false);
    }

    @Test
    void mariadb() throws Exception {
        fuzz("mariadb", SqlFuzzer.Flavor.MARIADB, maria, mariaSchema, env("FENCING_FUZZ_MARIADB_ITERATIONS", 700), false);
    }

    /** The control: the same statements without the driver must break the property, or the checks prove nothing. */
    @Test
    void withoutTheDriverTheSameStatementsViolate() throws Exception {
        long h2Violations = fuzz("h2 UNFENCED control", SqlFuzzer.Flavor.H2, h2, "PUBLIC", 300, true);
        long pgViolations = fuzz("postgresql UNFENCED control", SqlFuzzer.Flavor.POSTGRESQL, pgScratch, pgSchema, 150, true);
        long mariaViolations = fuzz("mariadb UNFENCED control", SqlFuzzer.Flavor.MARIADB, maria, mariaSchema, 150, true);
        if (h2Violations == 0 || pgViolations == 0 || mariaViolations == 0) {
            throw new AssertionFailedError("the unfenced control found no violation (h2 " + h2Violations + ", postgresql "
                    + pgViolations + ", mariadb " + mariaViolations + "): the fuzz checks cannot fail");
        }
    }

    /** What one statement did to the fenced table, as a list of changes. */
    private record Change(String op, long rowId, Long oldFence, Long newFence) {
    }

    /** The configuration the fuzzer runs under on the database whose schema is {@code schema}. */
    FencingConfig config(String schema) {
        return FencingConfig.builder().tables("orders").build();
    }

    /** The data source the fuzzer runs through: {@code raw} fenced with {@code config}. */
    DataSource fencedPath(DataSource raw, FencingConfig config) {
        return new FencingDataSource(raw, config);
    }

    /** Where the control sends its statements: the raw data source. */
    DataSource controlPath(DataSource raw, String schema) {
        return raw;
    }

    /** Prepares the connection that resets and reads the tables. */
    void prepareAdmin(Connection admin, SqlFuzzer.Flavor flavor) throws SQLException {
    }

    /**
     * Runs {@code iterations} statements: the first {@link #GUARANTEED_ITERATIONS} whatever the time,
     * the rest while the time budget lasts. With {@code control} the statements go to the raw data
     * source, and violations are counted instead of failing.
     *
     * @return the violations counted (always 0 when not a control: the first one fails)
     */
    long fuzz(String name, SqlFuzzer.Flavor flavor, DataSource raw, String schema, long iterations, boolean control)
            throws Exception {
        long base = baseSeed();
        Duration budget = Duration.ofSeconds(env("FENCING_FUZZ_SECONDS", 8));
        long deadline = System.nanoTime() + budget.toNanos();
        DataSource fenced = control ? controlPath(raw, schema)
                : Boolean.parseBoolean(System.getenv("FENCING_FUZZ_UNFENCED")) ? raw
                : fencedPath(raw, config(schema));
        long violations = 0;
        long[] outcomes = new long[4]; // completed, SQLException, refused by the driver, garbage statements
        long applied = 0;
        long run = 0;
        try (Connection admin = raw.getConnection()) {
            prepareAdmin(admin, flavor);
            Connection connection = fenced.getConnection();
            long watermark = 0;
            try {
                for (long i = 0; i < iterations && (i < GUARANTEED_ITERATIONS || System.nanoTime() < deadline); i++) {
                    if (i % RESET_EVERY == 0) {
                        reset(admin, flavor);
                        watermark = flavor == SqlFuzzer.Flavor.POSTGRESQL ? Db.number(admin, "SELECT coalesce(max(seq), 0) FROM fuzz_audit") : 0;
                    }
                    long seed = base + i;
                    SqlFuzzer fuzzer = new SqlFuzzer(seed, flavor, schema, MARIADB_MULTI_TABLE);
                    String sql = fuzzer.statement();
                    OptionalLong fence = switch (Math.floorMod(seed * 31, 10)) {
                        case 0, 1, 2 -> OptionalLong.empty();
                        case 3, 4, 5, 6 -> OptionalLong.of(STALE);
                        default -> OptionalLong.of(CURRENT);
                    };
                    boolean prepared = fuzzer.placeholders() > 0 ? Math.floorMod(seed * 17, 10) != 0 : Math.floorMod(seed * 17, 2) == 0;
                    List<Object> parameters = new ArrayList<>();
                    for (int p = 0; p < fuzzer.placeholders(); p++) {
                        parameters.add(fuzzer.parameter(p + 1));
                    }
                    if (fuzzer.hadGarbage()) {
                        outcomes[3]++;
                    }
                    Map<Long, Map<String, Object>> before = flavor != SqlFuzzer.Flavor.POSTGRESQL ? snapshot(admin) : null;
                    Throwable thrown = execute(connection, sql, prepared, parameters, fence);
                    if (connection.isClosed()) {
                        connection = fenced.getConnection();
                    }
                    String replay = "\n  seed " + seed + " (base " + base + ", iteration " + i + ", " + name + ")"
                            + "\n  fence " + (fence.isPresent() ? fence.getAsLong() : "none") + ", " + (prepared ? "PreparedStatement " + parameters : "Statement")
                            + "\n  sql: " + sql.replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
                            + "\n  thrown: " + Db.describe(thrown);
                    if (thrown != null && !(thrown instanceof SQLException)) {
                        System.out.println("FUZZ FAILURE (not an SQLException)" + replay);
                        throw new AssertionFailedError("the driver threw " + thrown.getClass().getName()
                                + ", not an SQLException" + replay, thrown);
                    }
                    if (VERBOSE) {
                        System.out.println("FUZZ ITERATION" + replay);
                    }
                    List<Change> changes;
                    if (flavor == SqlFuzzer.Flavor.POSTGRESQL) {
                        changes = audited(admin, watermark);
                        watermark = Db.number(admin, "SELECT coalesce(max(seq), 0) FROM fuzz_audit");
                    } else {
                        changes = diff(before, snapshot(admin));
                    }
                    for (Change change : changes) {
                        String problem = violation(change, fence);
                        if (problem != null && control) {
                            violations++;
                        } else if (problem != null) {
                            System.out.println("FUZZ FAILURE (" + problem + ")" + replay + "\n  changes: " + changes);
                            throw new AssertionFailedError("a write to the fenced table was applied without passing the check: "
                                    + problem + replay + "\n  changes: " + changes);
                        }
                    }
                    applied += changes.size();
                    if (thrown == null) {
                        outcomes[0]++;
                    } else if (thrown instanceof dev.fencing.FencingException) {
                        outcomes[2]++;
                    } else {
                        outcomes[1]++;
                    }
                    run = i + 1;
                }
            } finally {
                connection.close();
            }
        }
        System.out.printf("FUZZ %s: base seed %d, %d iterations (cap %d, budget %ds): %d completed, %d refused by the driver "
                        + "(FencingException), %d other SQLExceptions, %d with garbage tokens; %d row changes to the fenced table "
                        + "checked, %d violations%n",
                name, base, run, iterations, budget.toSeconds(), outcomes[0], outcomes[2], outcomes[1], outcomes[3], applied,
                violations);
        return violations;
    }

    /** Null when {@code change} passed the check for {@code fence}, else what is wrong with it. */
    private static String violation(Change change, OptionalLong fence) {
        if (fence.isEmpty()) {
            return change.op() + " of row " + change.rowId() + " with no fence in scope";
        }
        long token = fence.getAsLong();
        long old = change.oldFence() == null ? 0 : change.oldFence();
        switch (change.op()) {
            case "TRUNCATE":
                return "TRUNCATE of the fenced table";
            case "UPDATE":
                if (old > token) {
                    return "UPDATE of row " + change.rowId() + " holding fence " + old + " by fence " + token;
                }
                if (!Objects.equals(change.newFence(), token)) {
                    return "UPDATE of row " + change.rowId() + " left fence " + change.newFence() + ", not " + token;
                }
                return null;
            case "DELETE":
                return old > token ? "DELETE of row " + change.rowId() + " holding fence " + old + " by fence " + token : null;
            case "INSERT":
                return Objects.equals(change.newFence(), token) ? null
                        : "INSERT of row " + change.rowId() + " with fence " + change.newFence() + ", not " + token;
            default:
                return "unknown change " + change;
        }
    }

    @SuppressWarnings("try")
    private static Throwable execute(Connection connection, String sql, boolean prepared, List<Object> parameters,
                                     OptionalLong fence) {
        try (Fence.Scope scope = fence.isPresent() ? Fence.enter(fence.getAsLong()) : null) {
            if (prepared) {
                try (PreparedStatement statement = connection.prepareStatement(sql)) {
                    for (int i = 0; i < parameters.size(); i++) {
                        Object value = parameters.get(i);
                        if (value == null) {
                            statement.setNull(i + 1, Types.VARCHAR);
                        } else if (value instanceof Long number) {
                            statement.setLong(i + 1, number);
                        } else {
                            statement.setString(i + 1, (String) value);
                        }
                    }
                    drain(statement, statement.execute());
                }
            } else {
                try (Statement statement = connection.createStatement()) {
                    drain(statement, statement.execute(sql));
                }
            }
            return null;
        } catch (VirtualMachineError fatal) {
            throw fatal;
        } catch (Throwable thrown) {
            return thrown;
        }
    }

    private static void drain(Statement statement, boolean firstIsResultSet) throws SQLException {
        boolean resultSet = firstIsResultSet;
        for (int guard = 0; guard < 100; guard++) {
            if (resultSet) {
                try (ResultSet rows = statement.getResultSet()) {
                    while (rows.next()) {
                        rows.getObject(1);
                    }
                }
            } else if (statement.getUpdateCount() == -1) {
                return;
            }
            resultSet = statement.getMoreResults();
        }
    }

    private static void reset(Connection admin, SqlFuzzer.Flavor flavor) throws SQLException {
        Db.execute(admin, "DELETE FROM orders", "DELETE FROM orders_archive", "DELETE FROM customers",
                "INSERT INTO customers (id, name) VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')");
        StringBuilder rows = new StringBuilder();
        for (int id = 1; id <= 8; id++) {
            rows.append(id > 1 ? ", " : "").append("(").append(id).append(", 'pending', ").append(id * 50)
                    .append(", ").append(1 + id % 3).append(", ").append(ROW_FENCE).append(")");
        }
        Db.execute(admin, "INSERT INTO orders (id, status, amount, cid, last_fence) VALUES " + rows,
                "INSERT INTO orders_archive (id, status, amount, cid, last_fence) VALUES " + rows);
    }

    private static Map<Long, Map<String, Object>> snapshot(Connection admin) throws SQLException {
        Map<Long, Map<String, Object>> rows = new TreeMap<>();
        for (Map<String, Object> row : Db.rows(admin, "SELECT id, status, amount, cid, last_fence FROM orders")) {
            rows.put((Long) row.get("id"), row);
        }
        return rows;
    }

    private static List<Change> diff(Map<Long, Map<String, Object>> before, Map<Long, Map<String, Object>> after) {
        List<Change> changes = new ArrayList<>();
        for (Map.Entry<Long, Map<String, Object>> row : before.entrySet()) {
            Map<String, Object> now = after.get(row.getKey());
            Long oldFence = (Long) row.getValue().get("last_fence");
            if (now == null) {
                changes.add(new Change("DELETE", row.getKey(), oldFence, null));
            } else if (!now.equals(row.getValue())) {
                changes.add(new Change("UPDATE", row.getKey(), oldFence, (Long) now.get("last_fence")));
            }
        }
        for (Map.Entry<Long, Map<String, Object>> row : after.entrySet()) {
            if (!before.containsKey(row.getKey())) {
                changes.add(new Change("INSERT", row.getKey(), null, (Long) row.getValue().get("last_fence")));
            }
        }
        return changes;
    }

    private static List<Change> audited(Connection admin, long watermark) throws SQLException {
        List<Change> changes = new ArrayList<>();
        for (Map<String, Object> row : Db.rows(admin,
                "SELECT op, row_id, old_fence, new_fence FROM fuzz_audit WHERE seq > " + watermark + " ORDER BY seq")) {
            changes.add(new Change((String) row.get("op"), row.get("row_id") == null ? 0 : (Long) row.get("row_id"),
                    (Long) row.get("old_fence"), (Long) row.get("new_fence")));
        }
        return changes;
    }
}
