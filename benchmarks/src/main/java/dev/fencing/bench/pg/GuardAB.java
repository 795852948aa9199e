package dev.fencing.bench.pg;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.testing.PgBouncer;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * The database guard's cost on PostgreSQL through HikariCP, as same-run ratios: three variants
 * interleaved in short blocks (order rotated each round), so that the shared machine's changing
 * load hits all alike; directly and through pgbouncer in {@code pool_mode=transaction}.
 * <ul>
 *   <li>{@code GUARD}: {@link FencingDataSource} with {@code fencing.database-guard=required} over
 *       a table carrying the guard's triggers (rewrite + session fence + trigger);</li>
 *   <li>{@code REWRITE}: {@link FencingDataSource} without the guard, on a table without triggers;</li>
 *   <li>{@code HAND}: the pool, the fence check written by hand, on the table without triggers.</li>
 * </ul>
 * Scenarios, each a new fence scope with a new fence (as a new lock tenure would have): {@code ONE}
 * write per scope (borrow, prepare, execute, close), {@code TEN} writes per scope on one
 * connection in auto-commit, {@code TEN_TX} the same in one transaction, {@code BATCH} of 100 in
 * one {@code executeBatch}. Each thread writes its own rows, so its increasing fences are never
 * stale. Reported: rows written per second, and the ratios.
 *
 * <p>Routes: {@code direct} (the pool connects to PostgreSQL) and {@code pgbouncer} (the pool
 * connects to a throw-away pgbouncer in transaction mode, {@link PgBouncer}, pool of 8, with
 * pgjdbc's {@code prepareThreshold=0} as pgbouncer 1.18 needs). Everything runs in a scratch
 * database ({@code ALTER DATABASE .. SET synchronous_commit = off}, so that a commit does not wait
 * for the disk on either route), dropped afterwards.
 *
 * <p>{@code trigger}: the guard's trigger's own cost per row, measured apart, in the server:
 * {@code EXPLAIN (ANALYZE)} of one {@code UPDATE} of every row of a table with the guard (the
 * trigger's time and calls) and of the same {@code UPDATE} on the same rows without it, alternated,
 * each rolled back.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.pg.GuardAB [rounds] [blockMillis] [threads,...] [direct,pgbouncer]
 *java -cp benchmarks.jar dev.fencing.bench.pg.GuardAB trigger [rows] [repeats]</pre>
 */
public final class GuardAB {

    private enum Variant { GUARD, REWRITE, HAND }

    private enum Scenario {
        ONE(1), TEN(10), TEN_TX(10), BATCH(100);

        final int rows;

        Scenario(int rows) {
            this.rows = rows;
        }
    }

    private enum Route { DIRECT, PGBOUNCER }

    private static final int ROWS_PER_THREAD = 2_000;
    private static final int MAX_THREADS = 8;
    private static final AtomicLong FENCES = new AtomicLong(1_000);

    private final String database = "fencing_guard_bench_" + ProcessHandle.current().pid();
    private final String schema = "public";
    private HikariDataSource pool;
    private DataSource guarded;
    private DataSource rewriting;

    private GuardAB() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("trigger")) {
            TriggerCost.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        long blockMillis = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        int[] threadCounts = Arrays.stream((args.length > 2 ? args[2] : "1,4").split(","))
                .mapToInt(Integer::parseInt).toArray();
        List<Route> routes = Arrays.stream((args.length > 3 ? args[3] : "direct,pgbouncer").split(","))
                .map(r -> Route.valueOf(r.toUpperCase(Locale.ROOT))).toList();
        String load = loadAverage();
        for (Route route : routes) {
            GuardAB bench = new GuardAB();
            createScratchDatabase(bench.database);
            try (PgBouncer bouncer = route == Route.PGBOUNCER ? PgBouncer.start(PgBouncer.PoolMode.TRANSACTION, MAX_THREADS)
                    : null) {
                bench.open(bouncer);
                bench.measure(route, rounds, blockMillis, threadCounts);
            } finally {
                bench.close();
                dropScratchDatabase(bench.database);
            }
        }
        System.out.println("load average before: " + load + ", after: " + loadAverage());
    }

    private void measure(Route route, int rounds, long blockMillis, int[] threadCounts) throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            System.out.printf(Locale.ROOT, "database guard A/B/C on PostgreSQL (async commit), %s, %d rounds of %d ms per"
                    + " variant, load %s%n", route == Route.DIRECT ? "HikariCP -> PostgreSQL"
                    : "HikariCP -> pgbouncer (transaction mode, pool 8) -> PostgreSQL", rounds, blockMillis,
                    loadAverage());
            System.out.println("scenario  threads  rows/s guard  rewrite  hand  |  guard/rewrite median [p25, p75]"
                    + "  rewrite/hand median  guard/hand median  |  guard-rewrite us per row");
            for (Scenario scenario : Scenario.values()) {
                for (int n : threadCounts) {
                    for (Variant variant : Variant.values()) {
                        block(threads, scenario, variant, n, Math.max(1000, blockMillis)); // warm-up
                    }
                    double[][] rate = new double[Variant.values().length][rounds];
                    for (int round = 0; round < rounds; round++) {
                        for (int k = 0; k < 3; k++) {
                            Variant variant = Variant.values()[(round + k) % 3];
                            rate[variant.ordinal()][round] = block(threads, scenario, variant, n, blockMillis);
                        }
                    }
                    double[] guardRewrite = new double[rounds];
                    double[] rewriteHand = new double[rounds];
                    double[] guardHand = new double[rounds];
                    double[] extraMicros = new double[rounds];
                    for (int r = 0; r < rounds; r++) {
                        guardRewrite[r] = rate[0][r] / rate[1][r];
                        rewriteHand[r] = rate[1][r] / rate[2][r];
                        guardHand[r] = rate[0][r] / rate[2][r];
                        // wall time per row, per thread: what the guard adds to each row's latency
                        extraMicros[r] = (n / rate[0][r] - n / rate[1][r]) * 1e6;
                    }
                    double[] sorted = guardRewrite.clone();
                    Arrays.sort(sorted);
                    System.out.printf(Locale.ROOT, "%-8s  %7d  %12.0f  %7.0f  %4.0f  |  %.3f [%.3f, %.3f]  %.3f  %.3f  |  %+.1f%n",
                            scenario, n, median(rate[0]), median(rate[1]), median(rate[2]), median(guardRewrite),
                            sorted[rounds / 4], sorted[(3 * rounds) / 4], median(rewriteHand), median(guardHand),
                            median(extraMicros));
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    static String scratchUrl(String database) {
        return ClientCpuAB.withDatabase(Postgres.url(), database);
    }

    static void createScratchDatabase(String database) throws SQLException {
        try (Connection c = DriverManager.getConnection(Postgres.url()); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database);
            s.execute("CREATE DATABASE " + database);
            s.execute("ALTER DATABASE " + database + " SET synchronous_commit = off");
        }
    }

    static void dropScratchDatabase(String database) throws SQLException {
        try (Connection c = DriverManager.getConnection(Postgres.url()); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    private String table(Variant variant) {
        return schema + (variant == Variant.GUARD ? ".g_on" : ".g_off");
    }

    private void open(PgBouncer bouncer) throws SQLException {
        String direct = scratchUrl(database);
        try (Connection c = DriverManager.getConnection(direct); Statement s = c.createStatement()) {
            for (String table : List.of(schema + ".g_on", schema + ".g_off")) {
                s.execute("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, status TEXT NOT NULL, last_fence BIGINT NOT NULL)");
                s.execute("INSERT INTO " + table + " SELECT g, 'new', 0 FROM generate_series(1, "
                        + ROWS_PER_THREAD * MAX_THREADS + ") g");
                s.execute("VACUUM ANALYZE " + table);
            }
        }
        FencingConfig guard = FencingConfig.builder().tables(schema + ".g_on")
                .databaseGuard(FencingConfig.Guard.REQUIRED).build();
        PGSimpleDataSource installer = new PGSimpleDataSource();
        installer.setURL(direct);
        DatabaseGuard.install(installer, guard);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(bouncer == null ? direct : bouncer.jdbcUrl(database));
        config.setMaximumPoolSize(MAX_THREADS);
        config.setMinimumIdle(4);
        config.setPoolName("bench-guard");
        pool = new HikariDataSource(config);
        try (Connection c = pool.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SHOW synchronous_commit")) {
            r.next();
            if (!"off".equals(r.getString(1))) {
                throw new IllegalStateException("synchronous_commit is " + r.getString(1) + " in the scratch database");
            }
        }
        guarded = new FencingDataSource(pool, guard);
        rewriting = new FencingDataSource(pool, FencingConfig.builder().tables(schema + ".g_off").build());
    }

    private void close() {
        if (pool != null) {
            pool.close();
        }
    }

    /** Rows per second of one variant with {@code n} threads for {@code millis}. */
    private double block(ExecutorService threads, Scenario scenario, Variant variant, int n, long millis)
            throws Exception {
        long start = System.nanoTime();
        long deadline = start + millis * 1_000_000L;
        List<Callable<Long>> tasks = new ArrayList<>();
        for (int t = 0; t < n; t++) {
            int slot = t;
            tasks.add(() -> run(scenario, variant, slot, deadline));
        }
        long rows = 0;
        for (Future<Long> done : threads.invokeAll(tasks)) {
            rows += done.get();
        }
        return rows / ((System.nanoTime() - start) / 1e9);
    }

    @SuppressWarnings("try") // the fence scope is used by the statements inside it
    private long run(Scenario scenario, Variant variant, int slot, long deadline) throws SQLException {
        DataSource source = variant == Variant.GUARD ? guarded : variant == Variant.REWRITE ? rewriting : pool;
        String sql = variant == Variant.HAND
                ? "UPDATE " + table(variant) + " SET status = ?, last_fence = ? WHERE id = ? AND last_fence <= ?"
                : "UPDATE " + table(variant) + " SET status = ? WHERE id = ?";
        long rows = 0;
        long first = 1 + (long) slot * ROWS_PER_THREAD;
        while (System.nanoTime() < deadline) {
            long fence = FENCES.incrementAndGet();
            try (Fence.Scope scope = Fence.enter(fence); Connection c = source.getConnection();
                 PreparedStatement update = c.prepareStatement(sql)) {
                if (scenario == Scenario.TEN_TX) {
                    c.setAutoCommit(false);
                }
                for (int i = 0; i < scenario.rows; i++) {
                    long id = first + ThreadLocalRandom.current().nextLong(ROWS_PER_THREAD);
                    update.setString(1, (rows & 1) == 0 ? "paid" : "new");
                    if (variant == Variant.HAND) {
                        update.setLong(2, fence);
                        update.setLong(3, id);
                        update.setLong(4, fence);
                    } else {
                        update.setLong(2, id);
                    }
                    if (scenario == Scenario.BATCH) {
                        update.addBatch();
                    } else if (update.executeUpdate() != 1) {
                        throw new IllegalStateException(variant + ": a write changed no row");
                    }
                    rows++;
                }
                if (scenario == Scenario.BATCH) {
                    update.executeBatch();
                }
                if (scenario == Scenario.TEN_TX) {
                    c.commit();
                }
            }
        }
        return rows;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
