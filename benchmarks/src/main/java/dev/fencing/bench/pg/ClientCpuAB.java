package dev.fencing.bench.pg;

import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Issue 18, build item 4: what fencing-jdbc costs the client end to end on PostgreSQL, measured
 * as client CPU per operation (the worker threads' own CPU time, {@link ThreadMXBean}: pgjdbc and
 * fencing-jdbc both run on the calling thread) and throughput, fencing-jdbc
 * ({@link FencingDataSource} over pgjdbc) against hand-written fenced SQL on the raw pgjdbc
 * connection, for prepared and literal (plain {@code Statement}) updates, at 1 and 4 threads.
 *
 * <p>The harness creates a scratch database ({@code fencing_bench_<pid>}) with
 * {@code ALTER DATABASE .. SET synchronous_commit = off} (a commit does not wait for the WAL flush,
 * so the server's disk does not drown the client's cost), fills a table of 10,000 rows, and drops
 * the database at the end. Every worker thread holds one connection per variant for the whole run
 * (no pool: only the statement path is compared). Rounds are interleaved, A B then B A, so that a
 * change of background load hits both variants alike; each round's ratio (fencing / hand-written)
 * is kept, and the median with the quartiles and the extremes over the rounds is printed.
 *
 * <p>Both variants send the same statement to the server: fencing-jdbc's rewrite of
 * {@code UPDATE bench_orders SET status = ?, amount = amount + 1 WHERE id = ?} is
 * {@code .. SET status = ?, amount = amount + 1, last_fence = ? WHERE (id = ?) AND
 * COALESCE(bench_orders.last_fence, 0) <= ?}, which the hand-written variant writes itself (with
 * literals in the literal mode, a new id each time, as string-built SQL does).
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.pg.ClientCpuAB [rounds] [blockMillis] [threads,...]</pre>
 *
 * {@code FENCING_PG_URL} (default {@value Postgres#DEFAULT_URL}) names the server and the user;
 * the scratch database replaces the URL's database.
 */
public final class ClientCpuAB {

    private enum Variant { FENCING, HAND_WRITTEN }

    private enum Mode { PREPARED, LITERAL }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String TABLE = "bench_orders";
    private static final int ROWS = 10_000;
    private static final long FENCE = 1_000;
    private static final int WARM_UP_OPERATIONS = 20_000;
    private static final String[] STATUSES = {"new", "paid", "shipped", "done"};

    private static final String PREPARED_APPLICATION = "UPDATE " + TABLE + " SET status = ?, amount = amount + 1 "
            + "WHERE id = ?";
    private static final String PREPARED_HAND_WRITTEN = "UPDATE " + TABLE + " SET status = ?, amount = amount + 1, "
            + "last_fence = ? WHERE (id = ?) AND COALESCE(" + TABLE + ".last_fence, 0) <= ?";

    /** What one thread did in one block. */
    private record Work(long ops, long cpuNanos) {
    }

    /** One block of one variant: operations per second and client CPU nanoseconds per operation. */
    private record Block(double opsPerSecond, double cpuNanosPerOp) {
    }

    private ClientCpuAB() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        long blockMillis = args.length > 1 ? Long.parseLong(args[1]) : 2000;
        int[] threadCounts = Arrays.stream((args.length > 2 ? args[2] : "1,4").split(","))
                .mapToInt(Integer::parseInt).toArray();
        String baseUrl = Postgres.url();
        String database = "fencing_bench_" + ProcessHandle.current().pid();
        createScratchDatabase(baseUrl, database);
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            PGSimpleDataSource raw = new PGSimpleDataSource();
            raw.setURL(withDatabase(baseUrl, database));
            DataSource fencing = new FencingDataSource(raw, FencingConfig.builder().tables(TABLE).build());
            fillTable(raw);
            System.out.printf(Locale.ROOT, "PostgreSQL end to end, scratch database %s (synchronous_commit=off), "
                    + "%d rounds of %d ms per variant, order AB BA ..., load before: %s%n",
                    database, rounds, blockMillis, loadAverage());
            System.out.println("mode      threads | CPU us/op fencing  hand  ratio median [p25, p75] min..max"
                    + " | ops/s fencing  hand  ratio median [p25, p75] min..max");
            for (Mode mode : Mode.values()) {
                for (int threads : threadCounts) {
                    measure(pool, raw, fencing, mode, threads, rounds, blockMillis);
                }
            }
            checkTheFenceWasWritten(raw);
            System.out.printf(Locale.ROOT, "load after: %s%n", loadAverage());
        } finally {
            pool.shutdownNow();
            dropScratchDatabase(baseUrl, database);
        }
    }

    private static void measure(ExecutorService pool, DataSource raw, DataSource fencing, Mode mode, int threads,
                                int rounds, long blockMillis) throws Exception {
        List<Connection> fencingConnections = new ArrayList<>();
        List<Connection> rawConnections = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                fencingConnections.add(fencing.getConnection());
                rawConnections.add(raw.getConnection());
            }
            requireAsynchronousCommit(rawConnections.get(0));
            // until both variants have run enough operations for the JIT (or a minute has passed)
            long warmUntil = System.nanoTime() + 60_000_000_000L;
            double warmOps = 0;
            do {
                Block fencingWarm = block(pool, fencingConnections, Variant.FENCING, mode, Math.max(2000, blockMillis));
                Block handWarm = block(pool, rawConnections, Variant.HAND_WRITTEN, mode, Math.max(2000, blockMillis));
                warmOps += Math.min(fencingWarm.opsPerSecond(), handWarm.opsPerSecond()) * Math.max(2000, blockMillis) / 1e3;
            } while (warmOps < WARM_UP_OPERATIONS && System.nanoTime() < warmUntil);
            double[] cpuFencing = new double[rounds];
            double[] cpuHand = new double[rounds];
            double[] cpuRatio = new double[rounds];
            double[] opsFencing = new double[rounds];
            double[] opsHand = new double[rounds];
            double[] opsRatio = new double[rounds];
            for (int round = 0; round < rounds; round++) {
                boolean fencingFirst = (round & 1) == 0;
                for (int k = 0; k < 2; k++) {
                    boolean runFencing = (k == 0) == fencingFirst;
                    Block result = runFencing
                            ? block(pool, fencingConnections, Variant.FENCING, mode, blockMillis)
                            : block(pool, rawConnections, Variant.HAND_WRITTEN, mode, blockMillis);
                    if (runFencing) {
                        cpuFencing[round] = result.cpuNanosPerOp();
                        opsFencing[round] = result.opsPerSecond();
                    } else {
                        cpuHand[round] = result.cpuNanosPerOp();
                        opsHand[round] = result.opsPerSecond();
                    }
                }
                cpuRatio[round] = cpuFencing[round] / cpuHand[round];
                opsRatio[round] = opsFencing[round] / opsHand[round];
            }
            System.out.printf(Locale.ROOT, "%-8s  %7d | %17.2f  %5.2f  %s | %13.0f  %5.0f  %s%n", mode, threads,
                    median(cpuFencing) / 1e3, median(cpuHand) / 1e3, spread(cpuRatio),
                    median(opsFencing), median(opsHand), spread(opsRatio));
        } finally {
            for (Connection c : fencingConnections) {
                c.close();
            }
            for (Connection c : rawConnections) {
                c.close();
            }
        }
    }

    /** Each thread runs its own connection for {@code millis}. */
    private static Block block(ExecutorService pool, List<Connection> connections, Variant variant, Mode mode,
                               long millis) throws Exception {
        long start = System.nanoTime();
        long deadline = start + millis * 1_000_000L;
        List<Callable<Work>> tasks = new ArrayList<>();
        for (Connection connection : connections) {
            tasks.add(() -> work(connection, variant, mode, deadline));
        }
        long ops = 0;
        long cpu = 0;
        for (Future<Work> done : pool.invokeAll(tasks)) {
            ops += done.get().ops();
            cpu += done.get().cpuNanos();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Block(ops / seconds, (double) cpu / Math.max(1, ops));
    }

    @SuppressWarnings("try") // the fence scope is read by the statements inside it
    private static Work work(Connection connection, Variant variant, Mode mode, long deadline) throws SQLException {
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        long ops = 0;
        try (Fence.Scope scope = Fence.enter(FENCE)) {
            while (System.nanoTime() < deadline) {
                long id = ThreadLocalRandom.current().nextLong(1, ROWS + 1);
                String status = STATUSES[(int) (ops & 3)];
                int changed = mode == Mode.PREPARED ? prepared(connection, variant, status, id)
                        : literal(connection, variant, status, id);
                if (changed != 1) {
                    throw new IllegalStateException(variant + " " + mode + " changed " + changed + " rows");
                }
                ops++;
            }
        }
        return new Work(ops, THREADS.getCurrentThreadCpuTime() - cpuStart);
    }

    /** Prepared, executed and closed each time, as a pool-using application does. */
    private static int prepared(Connection connection, Variant variant, String status, long id) throws SQLException {
        if (variant == Variant.FENCING) {
            try (PreparedStatement update = connection.prepareStatement(PREPARED_APPLICATION)) {
                update.setString(1, status);
                update.setLong(2, id);
                return update.executeUpdate();
            }
        }
        try (PreparedStatement update = connection.prepareStatement(PREPARED_HAND_WRITTEN)) {
            update.setString(1, status);
            update.setLong(2, FENCE);
            update.setLong(3, id);
            update.setLong(4, FENCE);
            return update.executeUpdate();
        }
    }

    /** A plain statement with the values in its text, a new text each time. */
    private static int literal(Connection connection, Variant variant, String status, long id) throws SQLException {
        String sql = variant == Variant.FENCING
                ? "UPDATE " + TABLE + " SET status = '" + status + "', amount = amount + 1 WHERE id = " + id
                : "UPDATE " + TABLE + " SET status = '" + status + "', amount = amount + 1, last_fence = " + FENCE
                        + " WHERE (id = " + id + ") AND COALESCE(" + TABLE + ".last_fence, 0) <= " + FENCE;
        try (Statement statement = connection.createStatement()) {
            return statement.executeUpdate(sql);
        }
    }

    private static void createScratchDatabase(String baseUrl, String database) throws SQLException {
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setURL(baseUrl);
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
            s.execute("CREATE DATABASE " + database);
            s.execute("ALTER DATABASE " + database + " SET synchronous_commit = off");
        }
    }

    private static void dropScratchDatabase(String baseUrl, String database) throws SQLException {
        PGSimpleDataSource admin = new PGSimpleDataSource();
        admin.setURL(baseUrl);
        try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    /** {@code baseUrl} with its database replaced: {@code jdbc:postgresql://host:port/db?params}. */
    static String withDatabase(String baseUrl, String database) {
        int hostStart = baseUrl.indexOf("//") + 2;
        int pathStart = baseUrl.indexOf('/', hostStart);
        int query = baseUrl.indexOf('?', hostStart);
        String head = pathStart < 0 || (query >= 0 && query < pathStart)
                ? baseUrl.substring(0, query < 0 ? baseUrl.length() : query) : baseUrl.substring(0, pathStart);
        return head + "/" + database + (query < 0 ? "" : baseUrl.substring(query));
    }

    private static void fillTable(DataSource raw) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY, status TEXT NOT NULL, "
                    + "amount NUMERIC(14, 2) NOT NULL, last_fence BIGINT)");
            s.execute("INSERT INTO " + TABLE + " SELECT g, 'new', g * 1.5, NULL FROM generate_series(1, " + ROWS
                    + ") g");
            s.execute("VACUUM ANALYZE " + TABLE);
        }
    }

    private static void requireAsynchronousCommit(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet r = s.executeQuery("SHOW synchronous_commit")) {
            r.next();
            if (!"off".equals(r.getString(1))) {
                throw new IllegalStateException("synchronous_commit is " + r.getString(1) + " in the scratch database");
            }
        }
    }

    /** The fencing variant really carried the check: every row it wrote holds the fence. */
    @SuppressWarnings("try")
    private static void checkTheFenceWasWritten(DataSource raw) throws SQLException {
        try (Connection c = raw.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FILTER (WHERE last_fence = " + FENCE + "), "
                     + "count(*) FILTER (WHERE last_fence IS DISTINCT FROM " + FENCE + " AND status <> 'new') FROM "
                     + TABLE)) {
            r.next();
            if (r.getLong(1) == 0 || r.getLong(2) != 0) {
                throw new IllegalStateException("rows written without the fence: " + r.getLong(2)
                        + ", with it: " + r.getLong(1));
            }
        }
    }

    private static String spread(double[] ratios) {
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return String.format(Locale.ROOT, "%.3f [%.3f, %.3f] %.3f..%.3f", median(ratios), sorted[n / 4],
                sorted[(3 * n) / 4], sorted[0], sorted[n - 1]);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }
}
