package dev.fencing.proof;

import dev.fencing.it.Await;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.proof.Corpus.Entry;
import dev.fencing.proof.Corpus.Target;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;
import dev.fencing.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.opentest4j.AssertionFailedError;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What could smuggle SQL into the text the driver builds: configured names, and the token.
 * <ul>
 *   <li>Configured table and column names that are not plain identifiers are refused, through
 *       the builder and through properties.</li>
 *   <li>A fence is a positive {@code long}: no hostile fence can exist.</li>
 *   <li>For every fenced write of the bypass corpus, the text rendered for a plain
 *       {@link Statement} is the prepared text with exactly the fence placeholders replaced by
 *       the fence's digits, standing alone: no application text is joined to the token.</li>
 *   <li>What PostgreSQL receives (read from {@code pg_stat_activity} while the write waits): a
 *       plain Statement carries the fence as that literal; a PreparedStatement carries it only as
 *       a bound parameter.</li>
 * </ul>
 */
@TestDatabase(TestDatabase.Kind.POSTGRESQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SuppressWarnings("try") // fence scopes are entered for their effect on the thread
class SecurityTest {

    private final DataSource scratch;
    private final ExecutorService executor = Executors.newCachedThreadPool();

    SecurityTest(DataSource scratch) {
        this.scratch = scratch;
    }

    @BeforeAll
    void schema() throws SQLException {
        Db.execute(scratch, "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), last_fence BIGINT NOT NULL DEFAULT 0)",
                "INSERT INTO orders (id, status, last_fence) VALUES (1, 'new', 10)");
    }

    @AfterAll
    void stop() {
        executor.shutdownNow();
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders; DROP TABLE x", "a b", "x\"y", "orders--", "orders/*", "o'rders", "orders)",
            "\"orders\"; --", "\"orders\"\"; DROP TABLE x; --\"", "`orders`; x", "[orders]]; x", "c.s.orders",
            "1orders", "ord\u00e9rs", "orders\u200b", "s.t; x", "s t.orders", "\"a.b\"", "", "   "})
    void tableNamesThatAreNotPlainIdentifiersAreRefused(String name) {
        IllegalArgumentException builder = assertThrows(IllegalArgumentException.class,
                () -> FencingConfig.builder().tables(name).build(), "builder accepted table name [" + name + "]");
        assertTrue(builder.getMessage().contains(FencingConfig.TABLES), builder.getMessage());
        Properties properties = new Properties();
        properties.setProperty(FencingConfig.TABLES, name);
        RuntimeException fromProperties = assertThrows(RuntimeException.class, () -> FencingConfig.fromProperties(properties),
                "properties accepted table name [" + name + "]");
        assertTrue(fromProperties.getMessage().contains(FencingConfig.TABLES), fromProperties.getMessage());
    }

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    @ParameterizedTest
    @ValueSource(strings = {"last_fence; DROP TABLE x", "a b", "x\"y", "last_fence--", "\"last_fence\"", "last_fence = 0 --",
            "1col", "col)", "l\u00e4st", "last_fence,status", "t.last_fence", "last_fence ", " last_fence", "", "`c`", "c\n"})
    void columnNamesThatAreNotPlainIdentifiersAreRefused(String column) {
        IllegalArgumentException builder = assertThrows(IllegalArgumentException.class,
                () -> FencingConfig.builder().tables("orders").column(column).build(), "builder accepted column [" + column + "]");
        assertTrue(builder.getMessage().contains(FencingConfig.COLUMN), builder.getMessage());
        Properties properties = new Properties();
        properties.setProperty(FencingConfig.TABLES, "orders");
        properties.setProperty(FencingConfig.COLUMN, column);
        // Properties may be trimmed like a properties file; whatever is accepted must be a plain identifier.
        try {
            FencingConfig config = FencingConfig.fromProperties(properties);
            assertTrue(PLAIN.matcher(config.column()).matches(), "properties turned [" + column + "] into column ["
                    + config.column() + "]");
        } catch (IllegalArgumentException refused) {
            assertTrue(refused.getMessage().contains(FencingConfig.COLUMN), refused.getMessage());
        }
    }

    @Test
    void perTableKeysWithHostileNamesAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> FencingConfig.builder().set("fencing.table.orders;drop.mode", "row").build());
        assertThrows(IllegalArgumentException.class,
                () -> FencingConfig.builder().tableMode("orders x", FencingConfig.Mode.ROW).build());
    }

    @Test
    void aFenceIsAPositiveLongSoNoHostileFenceCanExist() {
        for (long token : new long[] {0, -1, -42, Long.MIN_VALUE}) {
            assertThrows(IllegalArgumentException.class, () -> Fence.enter(token), "Fence.enter(" + token + ")");
            assertThrows(IllegalArgumentException.class, () -> Fence.enter("lock", token), "Fence.enter(lock, " + token + ")");
        }
        assertThrows(IllegalArgumentException.class, () -> Fence.enter(" ", 5));
        try (Fence.Scope scope = Fence.enter(Long.MAX_VALUE)) {
            assertEquals(Long.MAX_VALUE, Fence.current().getAsLong());
        }
        assertTrue(Fence.current().isEmpty());
    }

    private static final long SENTINEL = 7_391_846_205_173_928_461L;

    /**
     * For every statement of the corpus that the analyzer fences, on its dialects: the rendered
     * text, with each occurrence of the fence's digits put back to {@code ?}, is exactly the
     * prepared text; there are as many occurrences as fence placeholders; each stands alone
     * (no letter, digit, quote or dot touches it); and two different fences give texts that
     * differ only there.
     */
    @Test
    void renderedFencesAreOnlyTheDigitsOfTheLongAtTheFencePositions() {
        int checked = 0;
        int fencePositions = 0;
        List<String> problems = new ArrayList<>();
        FencingConfig config = FencingConfig.builder().tables("orders", "payments").build();
        for (Entry entry : Corpus.load()) {
            for (Target target : entry.targets()) {
                StatementAnalyzer analyzer = new StatementAnalyzer(config, target.dialect());
                String schema = target == Target.H2 ? "PUBLIC" : "fx_schema";
                List<String> statements = entry.mode() == Corpus.Mode.BATCH || entry.mode() == Corpus.Mode.BATCH_LARGE
                        ? entry.statements(schema) : List.of(entry.sql(schema));
                for (String sql : statements) {
                    FencePlan plan = analyzer.plan(sql);
                    if (plan.kind() != FencePlan.Kind.FENCED) {
                        continue;
                    }
                    checked++;
                    fencePositions += plan.fenceIndexes().length;
                    String problem = renderingProblem(plan, sql);
                    if (problem != null) {
                        problems.add(target.tag + " " + entry.id() + ": " + problem);
                    }
                }
            }
        }
        System.out.println("SECURITY renderWithFence: " + checked + " fenced corpus statements, " + fencePositions
                + " fence positions, " + problems.size() + " problems");
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertTrue(checked > 150, "too few fenced statements checked: " + checked);
    }

    private static String renderingProblem(FencePlan plan, String sql) {
        String digits = Long.toString(SENTINEL);
        if (sql.contains(digits)) {
            return "the sentinel occurs in the application's SQL";
        }
        String rendered = plan.renderWithFence(SENTINEL);
        int occurrences = 0;
        Matcher matcher = Pattern.compile(Pattern.quote(digits)).matcher(rendered);
        while (matcher.find()) {
            occurrences++;
            char before = matcher.start() == 0 ? ' ' : rendered.charAt(matcher.start() - 1);
            char after = matcher.end() == rendered.length() ? ' ' : rendered.charAt(matcher.end());
            if (touches(before) || touches(after) || before == '-') {
                return "the fence is joined to neighbouring text: ..." + rendered.substring(Math.max(0, matcher.start() - 12),
                        Math.min(rendered.length(), matcher.end() + 12)) + "...";
            }
        }
        if (occurrences != plan.fenceIndexes().length) {
            return occurrences + " fence literals for " + plan.fenceIndexes().length + " fence placeholders: " + rendered;
        }
        if (!rendered.replace(digits, "?").equals(plan.preparedSql())) {
            return "the rendered text differs from the prepared text elsewhere than at the fences:\n  " + rendered
                    + "\n  " + plan.preparedSql();
        }
        if (!plan.renderWithFence(1).equals(rendered.replace(digits, "1"))) {
            return "two fences render texts that differ elsewhere than at the fences";
        }
        return null;
    }

    private static boolean touches(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '\'' || c == '"' || c == '`' || c == '$' || c == '.';
    }

    /** The query text PostgreSQL shows for a backend while it waits for a lock. */
    private String receivedWhileWaiting(String sql, boolean prepared, long fence, DataSource fenced) throws Exception {
        try (Connection blocker = scratch.getConnection()) {
            blocker.setAutoCommit(false);
            Db.rows(blocker, "SELECT id FROM orders WHERE id = 1 FOR UPDATE");
            CompletableFuture<Long> backend = new CompletableFuture<>();
            Future<Integer> writer = executor.submit(() -> {
                try (Fence.Scope scope = Fence.enter(fence); Connection connection = fenced.getConnection()) {
                    backend.complete(Db.number(connection, "SELECT pg_backend_pid()"));
                    if (prepared) {
                        try (PreparedStatement statement = connection.prepareStatement(sql)) {
                            statement.setString(1, "seen");
                            statement.setLong(2, 1);
                            return statement.executeUpdate();
                        }
                    }
                    try (Statement statement = connection.createStatement()) {
                        return statement.executeUpdate(sql);
                    }
                }
            });
            long pid = backend.get(10, TimeUnit.SECONDS);
            String[] query = new String[1];
            Await.until("the fenced write waits for the row lock", Duration.ofSeconds(10), () -> {
                List<Map<String, Object>> rows = Db.rows(scratch,
                        "SELECT wait_event_type, query FROM pg_stat_activity WHERE pid = " + pid);
                if (!rows.isEmpty() && "Lock".equals(rows.get(0).get("wait_event_type"))) {
                    query[0] = (String) rows.get(0).get("query");
                    return true;
                }
                return false;
            });
            blocker.rollback();
            assertEquals(1, writer.get(10, TimeUnit.SECONDS));
            return query[0];
        }
    }

    @Test
    void theTokenReachesPostgresOnlyAsALiteralFromTheLongOrAsABoundValue() throws Exception {
        FencingConfig config = FencingConfig.builder().tables("orders").build();
        DataSource fenced = new FencingDataSource(scratch, config);
        StatementAnalyzer analyzer = new StatementAnalyzer(config, dev.fencing.internal.sql.Dialect.POSTGRESQL);
        long fence = 918_273_645L;

        String plainSql = "UPDATE orders SET status = 'seen' WHERE id = 1";
        String plain = receivedWhileWaiting(plainSql, false, fence, fenced);
        assertEquals(analyzer.plan(plainSql).renderWithFence(fence), plain,
                "a plain Statement must reach PostgreSQL as the rendered text, the fence a literal of the long");
        System.out.println("SECURITY PostgreSQL received (Statement): " + plain);

        String preparedSql = "UPDATE orders SET status = ? WHERE id = ?";
        String prepared = receivedWhileWaiting(preparedSql, true, fence + 1, fenced);
        assertFalse(prepared.contains(Long.toString(fence + 1)), "a PreparedStatement must carry the fence as a bound value: " + prepared);
        String expected = analyzer.plan(preparedSql).preparedSql();
        int n = 0;
        StringBuilder numbered = new StringBuilder();
        for (char c : expected.toCharArray()) {
            numbered.append(c == '?' ? "$" + (++n) : String.valueOf(c));
        }
        assertEquals(numbered.toString(), prepared);
        System.out.println("SECURITY PostgreSQL received (PreparedStatement): " + prepared);
        if (!Db.rows(scratch, "SELECT last_fence FROM orders WHERE id = 1").get(0).get("last_fence").equals(fence + 1)) {
            throw new AssertionFailedError("the prepared write did not record its fence");
        }
    }
}
