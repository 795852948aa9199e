package dev.fencing.bench.pg;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.jdbc.FencingDataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Goal 3: end to end on PostgreSQL over loopback, through HikariCP. Each operation borrows a
 * connection, prepares, binds, executes and gives the connection back, as application code does.
 *
 * <ul>
 *   <li>{@code updateFenced}: {@code UPDATE t SET status = ? WHERE id = ?} through
 *       {@link FencingDataSource}, which sends the fenced form with the fence bound.</li>
 *   <li>{@code updateHandWritten}: the same fenced SQL written by hand, through the raw pool:
 *       {@code UPDATE t SET status = ?, last_fence = ? WHERE (id = ?) AND COALESCE(last_fence, 0) <= ?}.</li>
 *   <li>{@code mix*}: read-mostly, 9 {@code SELECT .. WHERE id = ?} to 1 such UPDATE.</li>
 * </ul>
 * Run with {@code -t 1} and {@code -t 4}. {@code commit=durable} is PostgreSQL's default
 * (every autocommitted UPDATE waits for the WAL flush); {@code commit=async} sets
 * {@code synchronous_commit = off} on the pool's connections, which removes the flush wait and
 * so makes the client-side cost a larger share of each operation (the stricter comparison).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class PostgresBenchmark {

    static final String TABLE = "bench_orders_e2e";
    static final int ROWS = 10_000;
    static final long FENCE = 1_000;

    static final String UPDATE = "UPDATE " + TABLE + " SET status = ? WHERE id = ?";
    static final String UPDATE_HAND_WRITTEN = "UPDATE " + TABLE + " SET status = ?, last_fence = ? "
            + "WHERE (id = ?) AND COALESCE(last_fence, 0) <= ?";
    static final String SELECT = "SELECT status, amount FROM " + TABLE + " WHERE id = ?";

    private static final String[] STATUSES = {"new", "paid", "shipped", "done"};

    @State(Scope.Benchmark)
    public static class Database {

        @Param({"async", "durable"})
        public String commit;

        HikariDataSource pool;
        DataSource fenced;

        @Setup(Level.Trial)
        @SuppressWarnings("try") // the fence scope is used by the statement inside it
        public void open() throws SQLException {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(Postgres.url());
            config.setMaximumPoolSize(4);
            config.setMinimumIdle(4);
            config.setPoolName("bench");
            if (commit.equals("async")) {
                config.setConnectionInitSql("SET synchronous_commit = off");
            }
            pool = new HikariDataSource(config);
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + TABLE);
                s.execute("CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY, status TEXT NOT NULL, "
                        + "amount NUMERIC(12, 2) NOT NULL, last_fence BIGINT)");
                s.execute("INSERT INTO " + TABLE + " SELECT g, 'new', g * 1.5, NULL FROM generate_series(1, "
                        + ROWS + ") g");
                s.execute("VACUUM ANALYZE " + TABLE);
            }
            fenced = new FencingDataSource(pool, FencingConfig.builder().tables(TABLE).build());
            // The check really is applied: a stale fence must not write.
            try (Fence.Scope scope = Fence.enter(FENCE); Connection c = fenced.getConnection();
                 PreparedStatement update = c.prepareStatement(UPDATE)) {
                update.setString(1, "new");
                update.setLong(2, 1);
                if (update.executeUpdate() != 1) {
                    throw new IllegalStateException("the fenced update changed no row");
                }
            }
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS " + TABLE);
            } finally {
                pool.close();
            }
        }
    }

    /** Each worker thread holds the same fence for the whole run, as one lock tenure would. */
    @State(Scope.Thread)
    public static class Worker {
        Fence.Scope scope;
        int op;

        @Setup(Level.Trial)
        public void enter() {
            scope = Fence.enter(FENCE);
        }

        @TearDown(Level.Trial)
        public void exit() {
            scope.close();
        }
    }

    private static long randomId() {
        return ThreadLocalRandom.current().nextLong(1, ROWS + 1);
    }

    private static String status(Worker worker) {
        return STATUSES[worker.op & 3];
    }

    static int fencedUpdate(DataSource fenced, String status, long id) throws SQLException {
        try (Connection c = fenced.getConnection(); PreparedStatement update = c.prepareStatement(UPDATE)) {
            update.setString(1, status);
            update.setLong(2, id);
            return update.executeUpdate();
        }
    }

    static int handWrittenUpdate(DataSource pool, String status, long id, long fence) throws SQLException {
        try (Connection c = pool.getConnection(); PreparedStatement update = c.prepareStatement(UPDATE_HAND_WRITTEN)) {
            update.setString(1, status);
            update.setLong(2, fence);
            update.setLong(3, id);
            update.setLong(4, fence);
            return update.executeUpdate();
        }
    }

    static String select(DataSource dataSource, long id) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement select = c.prepareStatement(SELECT)) {
            select.setLong(1, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    @Benchmark
    public int updateFenced(Database db, Worker worker) throws SQLException {
        worker.op++;
        return fencedUpdate(db.fenced, status(worker), randomId());
    }

    @Benchmark
    public int updateHandWritten(Database db, Worker worker) throws SQLException {
        worker.op++;
        return handWrittenUpdate(db.pool, status(worker), randomId(), FENCE);
    }

    /** Read-mostly: nine SELECTs by id to one fenced UPDATE, all through the fencing data source. */
    @Benchmark
    public Object mixFenced(Database db, Worker worker) throws SQLException {
        if (++worker.op % 10 == 0) {
            return fencedUpdate(db.fenced, status(worker), randomId());
        }
        return select(db.fenced, randomId());
    }

    /** Read-mostly: the same mix through the raw pool with the hand-written fenced UPDATE. */
    @Benchmark
    public Object mixHandWritten(Database db, Worker worker) throws SQLException {
        if (++worker.op % 10 == 0) {
            return handWrittenUpdate(db.pool, status(worker), randomId(), FENCE);
        }
        return select(db.pool, randomId());
    }
}
