package dev.fencing.proof;

import dev.fencing.FencingConfig;
import dev.fencing.internal.sql.FencePlan;
import dev.fencing.internal.sql.StatementAnalyzer;
import dev.fencing.internal.sql.ZeroRowCheck;
import dev.fencing.proof.Corpus.Entry;
import dev.fencing.proof.Corpus.Target;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.zip.GZIPOutputStream;

/**
 * Every plan the analyzer makes, as text: for four configurations x three dialects over the bypass
 * corpus, the fuzzer's output (fixed seed) and the SQL texts harvested from the test sources
 * ({@link PlanDumpTexts}), one line per (configuration, dialect, text) with every plan field, the
 * refusal message, the spliced text (the fence rendered) and the zero-row diagnosis. Sorted, so
 * that two dumps compare line by line: a restructuring of the analyzer that changes no plan leaves
 * it byte for byte the same ({@link PlanDumpTest}).
 *
 * <p>The analyzer is built directly, as the proof suite and the server oracle build it; H2's plans
 * are made after reading the keys and a foreign-key cascade from an in-memory database, so that the
 * zero-row diagnosis by key and the cascade refusals are in the dump too.
 *
 * <p>Written to a file (gzip when the name ends in {@code .gz}) by {@code PlanDumpTest} with
 * {@code -Dfencing.plan-dump.out=<file>}, or by {@code main} from any IDE.
 */
final class PlanDump {

    /** The fuzzer's seed and how many texts it makes per dialect. */
    static final long FUZZ_SEED = 28;
    static final int FUZZ_TEXTS = 600;

    private PlanDump() {
    }

    /** The four configurations of a dialect whose scratch schema is {@code schema}, by name. */
    static Map<String, FencingConfig> configurations(String schema) {
        String payments = schema + ".payments";
        Map<String, FencingConfig> configs = new LinkedHashMap<>();
        configs.put("row", base(payments).build());
        configs.put("epoch", base(payments).mode(FencingConfig.Mode.EPOCH).tableMode(payments, FencingConfig.Mode.ROW)
                .build());
        configs.put("guarded", base(payments).databaseGuard(FencingConfig.Guard.REQUIRED).build());
        configs.put("strict", base(payments).onZeroRows(FencingConfig.ZeroRows.RAISE)
                .comparison(FencingConfig.Comparison.STRICTLY_NEWER)
                .procedureCalls(FencingConfig.ProcedureCalls.REJECT).build());
        return configs;
    }

    private static FencingConfig.Builder base(String payments) {
        // a parse never times out here (the machine may be slow): a timeout would be a plan of its own
        return FencingConfig.builder().tables("orders", payments).parseTimeoutMillis(60_000)
                .planCacheSize(1_000_000);
    }

    static String schemaOf(Target target) {
        return target == Target.H2 ? "PUBLIC" : "fx_schema";
    }

    /** The texts of one dialect: corpus, fuzzer, harvested; each once, sorted. */
    static List<String> texts(Target target) {
        String schema = schemaOf(target);
        TreeSet<String> texts = new TreeSet<>();
        for (Entry entry : Corpus.load()) {
            if (entry.targets().contains(target)) {
                texts.addAll(entry.statements(schema));
                texts.add(entry.sql(schema));
            }
        }
        SqlFuzzer fuzzer = new SqlFuzzer(FUZZ_SEED, switch (target) {
            case PG -> SqlFuzzer.Flavor.POSTGRESQL;
            case H2 -> SqlFuzzer.Flavor.H2;
            case MARIA -> SqlFuzzer.Flavor.MARIADB;
        }, schema, target == Target.MARIA);
        for (int i = 0; i < FUZZ_TEXTS; i++) {
            texts.add(fuzzer.statement());
        }
        texts.addAll(PlanDumpTexts.load());
        return new ArrayList<>(texts);
    }

    /** The whole dump, sorted, one line per (configuration, dialect, text). */
    static List<String> lines() throws SQLException {
        return lines(PlanDump::describe);
    }

    static List<String> lines(Function<FencePlan, String> description) throws SQLException {
        List<String> lines = new ArrayList<>();
        for (Target target : Target.values()) {
            List<String> texts = texts(target);
            for (Map.Entry<String, FencingConfig> config : configurations(schemaOf(target)).entrySet()) {
                try (Connection h2 = target == Target.H2 ? keyedH2(config.getValue()) : null) {
                    StatementAnalyzer analyzer = new StatementAnalyzer(config.getValue(), target.dialect());
                    if (h2 != null) {
                        analyzer.learnSchema(h2);
                    }
                    for (String sql : texts) {
                        // each text once: a miss is a text the pre-filter did not pass (analysed, by shape or in full)
                        long missesBefore = analyzer.misses();
                        FencePlan plan = analyzer.plan(sql);
                        String route = analyzer.misses() == missesBefore ? "prefiltered" : "analysed";
                        lines.add(config.getKey() + '\t' + target.tag + '\t' + escape(sql) + '\t' + route + '\t'
                                + escape(description.apply(plan)));
                    }
                }
            }
        }
        lines.sort(null);
        return lines;
    }

    /** Every field of a plan: what it tells the pipeline, the database's text with a fence rendered included. */
    static String describe(FencePlan plan) {
        StringBuilder text = new StringBuilder().append(plan.kind())
                .append(" | table=").append(plan.fencedTable())
                .append(" | names=").append(plan.namesFencedTable())
                .append(" | prepared=").append(plan.preparedSql().equals(plan.sql()) ? "=sql" : plan.preparedSql())
                .append(" | rendered=");
        String rendered = plan.renderWithFence(9_000_000_001L);
        text.append(rendered.equals(plan.sql()) ? "=sql" : rendered.equals(plan.preparedSql()) ? "=prepared" : rendered)
                .append(" | fences=").append(Arrays.toString(plan.fenceIndexes()))
                .append(" | parameters=").append(plan.parameterCount()).append(':');
        for (int i = 1; i <= plan.parameterCount() + 1; i++) {
            text.append(' ').append(plan.databaseIndex(i));
        }
        text.append(" | count=").append(plan.countIsTheFencedWrite())
                .append(" epoch=").append(plan.writesEpochTable())
                .append(" txn=").append(plan.controlsTransaction())
                .append(" schema=").append(plan.changesSchema())
                .append(" guard=").append(plan.checkedByGuard())
                .append(" carries=").append(plan.carriesTheFence())
                .append(" | zero=").append(describe(plan.zeroRowCheck()));
        if (plan.kind() == FencePlan.Kind.REFUSED) {
            String exception = plan.refusal().getMessage();
            text.append(" | refused: ").append(plan.refusalReason())
                    .append(exception.equals(plan.refusalReason()) ? "" : " | exception: " + exception);
        }
        return text.toString();
    }

    private static String describe(ZeroRowCheck check) {
        if (check == null) {
            return "none";
        }
        String text = check.method() + " " + check + " params=" + Arrays.toString(check.queryParameters())
                + " expect=" + (check.method() == ZeroRowCheck.Method.NEWEST_FENCE_QUERY ? "-" : check.expectedRows());
        return check.byKey() == null ? text : text + " byKey=(" + describe(check.byKey()) + ")";
    }

    /** An in-memory H2 database with the fenced tables' keys and a cascade into them. */
    static Connection keyedH2(FencingConfig config) throws SQLException {
        Connection h2 = DriverManager.getConnection("jdbc:h2:mem:plandump_" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (Statement s = h2.createStatement()) {
            s.execute("CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(40))");
            s.execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(40), amount DECIMAL(12,2), "
                    + "customer_id BIGINT REFERENCES customers (id) ON DELETE CASCADE, " + config.column() + " BIGINT)");
            s.execute("CREATE TABLE payments (id BIGINT PRIMARY KEY, order_id BIGINT, amount INT, " + config.column()
                    + " BIGINT)");
        }
        return h2;
    }

    /** {@code \n \r \t \\} escaped: one text, one line. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    static String unescape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) {
                char next = text.charAt(++i);
                out.append(switch (next) {
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    default -> next;
                });
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Writes the dump to {@code args[0]} (gzip when it ends in {@code .gz}). */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "plan-dump.txt.gz");
        write(lines(), out);
        System.out.println("plan dump -> " + out.toAbsolutePath());
    }

    static void write(List<String> lines, Path out) throws IOException {
        try (OutputStream file = Files.newOutputStream(out);
             OutputStream stream = out.toString().endsWith(".gz") ? new GZIPOutputStream(file) : file) {
            for (String line : lines) {
                stream.write(line.getBytes(StandardCharsets.UTF_8));
                stream.write('\n');
            }
        }
    }
}
