package dev.fencing.it.pipeline;

import dev.fencing.internal.jdbc.*;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;
import dev.fencing.FencingConfig;
import dev.fencing.MissingFenceException;
import dev.fencing.StaleFenceException;
import dev.fencing.jdbc.DatabaseGuard;
import dev.fencing.jdbc.FencingDataSource;
import dev.fencing.it.UniqueNames;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The stateful randomized test of the database guard (issue 27): random sequences of operations on
 * one HikariCP pool shared by fenced ({@link FencingDataSource}) and raw users, each run against a
 * real database, every write judged by a small model of what the guard must allow and the fenced
 * table read back after every step on a connection of its own (never through the pool). A failing
 * sequence is shrunk (steps dropped while it still fails) and printed with its seed.
 *
 * <p>The model (docs/guard.md, "The guard's model, as the randomized test checks it"):
 * <ul>
 *   <li>a write through the driver is allowed iff the thread that runs it has a fence F at that
 *       statement and no row it changes holds a newer fence (row mode, newer-or-equal); it then
 *       leaves F on the row. Without a fence it is refused;</li>
 *   <li>a raw write (the pool used directly) is refused: it has no fence of its own. Only the session
 *       a raw script marked itself ({@code set_config('fencing.migration', .., false)} and the like)
 *       is not judged: the guard does not stop a client that marks itself, and such a mark
 *       stays in that physical session;</li>
 *   <li>the work of {@link DatabaseGuard#migrate} is allowed and leaves the fence column as it was;
 *       it lands only when the work returns;</li>
 *   <li>a write lands when its transaction commits: at once in auto-commit, at {@code commit()},
 *       {@code COMMIT}, {@code setAutoCommit(true)}; never after a rollback (JDBC, text, to a savepoint
 *       for what followed it), a close or an abort; and on PostgreSQL a transaction in which a
 *       statement failed ends in a rollback whatever ends it.</li>
 * </ul>
 * What the model cannot know it observes: whether a statement failed, and on PostgreSQL whether the
 * server's transaction is in the failed state (pgjdbc's transaction state of the physical connection).
 */
final class GuardModel {

    enum Db { POSTGRESQL, MARIADB, H2 }

    /** One database with the guard installed on {@code <schema>.orders} and {@code <schema>.mark(id, status)}. */
    record Target(String name, Db db, DataSource direct, DataSource pooled, boolean pgBouncer, String schema,
                  String rawMark, String poolInitSql) {

        String orders() {
            return schema + ".orders";
        }

        FencingConfig config() {
            return FencingConfig.builder().tables(orders()).databaseGuard(FencingConfig.Guard.REQUIRED).build();
        }
    }

    /** How long and how hard to search; read from system properties (-Plong sets fencing.long). */
    record Budget(long seed, long seconds, int tries, int maxSteps, boolean collect, long shrinkSeconds) {
        static Budget fromSystemProperties() {
            boolean long_ = Boolean.getBoolean("fencing.long");
            return new Budget(Long.getLong("fencing.guardmodel.seed", System.nanoTime() & 0xffffffffL),
                    Long.getLong("fencing.guardmodel.seconds", long_ ? 300 : 22),
                    Integer.getInteger("fencing.guardmodel.tries", 0),
                    Integer.getInteger("fencing.guardmodel.steps", long_ ? 60 : 32),
                    Boolean.getBoolean("fencing.guardmodel.collect"),
                    Long.getLong("fencing.guardmodel.shrink-seconds", 60));
        }
    }

    // ---- operations -----------------------------------------------------------------------------------

    enum Kind {
        ENTER, CLOSE_SCOPE, OPEN_FENCED, OPEN_RAW, READ, UPDATE, INSERT, DELETE, CALL, FAIL,
        AUTOCOMMIT_OFF, AUTOCOMMIT_ON, COMMIT, COMMIT_TEXT, ROLLBACK, ROLLBACK_TEXT, SAVEPOINT, ROLLBACK_TO,
        CLOSE, ABORT, MIGRATE, RAW_SCRIPT
    }

    /**
     * One step, interpreted against the state the steps before it left: {@code target} picks an open
     * connection (or scope) modulo how many there are, and a step that cannot run there (no
     * connection, a full pool, a row another open transaction holds) is skipped, so every
     * subsequence of a sequence is a sequence too.
     */
    record Op(Kind kind, int worker, int target, int row, long fence, int variant) {
        @Override
        public String toString() {
            return switch (kind) {
                case ENTER -> "ENTER(T" + worker + ", " + fence + ")";
                case CLOSE_SCOPE -> "CLOSE_SCOPE(#" + target + " on T" + worker + ")";
                case OPEN_FENCED, OPEN_RAW -> kind + "(T" + worker + ")";
                case MIGRATE, RAW_SCRIPT -> kind + "(T" + worker + ", row " + row + ", v" + variant + ")";
                case READ, UPDATE, INSERT, DELETE, CALL -> kind + "(c" + target + " on T" + worker + ", row " + row
                        + ((variant & 1) == 1 ? ", prepared" : "") + ")";
                default -> kind + "(c" + target + " on T" + worker + (variant != 0 ? ", v" + variant : "") + ")";
            };
        }
    }

    private static final long[] FENCES = {4, 5, 6, 7};
    private static final long INITIAL_FENCE = 5;
    private static final int ROWS = 4; // rows 1-3 exist at the start, 4 does not

    /**
     * Kinds that a sequence may leave out altogether (swarm testing): each group is left out of half
     * the sequences, so that a frequent finding (a raw script's mark) does not hide rarer ones.
     */
    private static final List<Set<Kind>> SWARM = List.of(Set.of(Kind.RAW_SCRIPT, Kind.MIGRATE), Set.of(Kind.OPEN_RAW),
            Set.of(Kind.FAIL), Set.of(Kind.ABORT), Set.of(Kind.SAVEPOINT, Kind.ROLLBACK_TO),
            Set.of(Kind.INSERT, Kind.DELETE));

    static List<Op> generate(Random random, int length, int workers, Set<Kind> excluded) {
        Set<Kind> without = new HashSet<>(excluded);
        for (Set<Kind> group : SWARM) {
            if (random.nextBoolean()) {
                without.addAll(group);
            }
        }
        List<Op> ops = new ArrayList<>();
        while (ops.size() < length) {
            generateChunk(random, workers, ops);
            ops.removeIf(op -> without.contains(op.kind()));
        }
        return ops;
    }

    private static void generateChunk(Random random, int workers, List<Op> ops) {
        {
            int worker = worker(random, workers);
            int handle = random.nextInt(2);
            int roll = random.nextInt(100);
            if (roll < 17) {
                ops.add(random.nextInt(5) < 3 ? new Op(Kind.ENTER, worker, 0, 0, FENCES[random.nextInt(FENCES.length)], 0)
                        : new Op(Kind.CLOSE_SCOPE, worker, random.nextInt(3), 0, 0, 0));
            } else if (roll < 29) {
                ops.add(new Op(random.nextBoolean() ? Kind.OPEN_FENCED : Kind.OPEN_RAW, worker, 0, 0, 0, 0));
            } else if (roll < 51) {
                ops.add(statement(random, worker, handle));
            } else if (roll < 75) {
                ops.add(new Op(Kind.AUTOCOMMIT_OFF, worker, handle, 0, 0, 0));
                for (int n = 1 + random.nextInt(4); n > 0; n--) {
                    int w = random.nextInt(5) == 0 ? worker(random, workers) : worker;
                    ops.add(random.nextInt(7) == 0
                            ? new Op(random.nextBoolean() ? Kind.SAVEPOINT : Kind.ROLLBACK_TO, w, handle, 0, 0, random.nextInt(4))
                            : statement(random, w, handle));
                }
                Kind[] ends = {Kind.COMMIT, Kind.COMMIT_TEXT, Kind.ROLLBACK, Kind.ROLLBACK_TEXT, Kind.AUTOCOMMIT_ON,
                        Kind.AUTOCOMMIT_ON, Kind.CLOSE, Kind.ABORT, null};
                Kind end = ends[random.nextInt(ends.length)];
                if (end != null) {
                    ops.add(new Op(end, worker, handle, 0, 0, 0));
                }
            } else if (roll < 84) {
                ops.add(new Op(random.nextInt(5) == 0 ? Kind.ABORT : Kind.CLOSE, worker, handle, 0, 0, 0));
            } else if (roll < 89) {
                ops.add(new Op(Kind.MIGRATE, worker, 0, 1 + random.nextInt(ROWS), 0, random.nextInt(9)));
            } else if (roll < 94) {
                ops.add(new Op(Kind.RAW_SCRIPT, worker, 0, 1 + random.nextInt(ROWS), 0, random.nextInt(4)));
            } else {
                ops.add(new Op(random.nextBoolean() ? Kind.AUTOCOMMIT_OFF : Kind.AUTOCOMMIT_ON, worker, handle, 0, 0, 0));
            }
        }
    }

    private static int worker(Random random, int workers) {
        return random.nextInt(10) < 6 ? 0 : random.nextInt(workers);
    }

    private static Op statement(Random random, int worker, int handle) {
        int roll = random.nextInt(100);
        Kind kind = roll < 18 ? Kind.READ : roll < 38 ? Kind.UPDATE : roll < 47 ? Kind.INSERT : roll < 54 ? Kind.DELETE
                : roll < 80 ? Kind.CALL : Kind.FAIL;
        return new Op(kind, worker, handle, 1 + random.nextInt(ROWS), 0, random.nextInt(8));
    }

    // ---- the search -------------------------------------------------------------------------------------

    /** A failing sequence, shrunk. */
    record Found(long seed, long afterMillis, int originalSteps, List<Op> shrunk, String failure, String cls,
                 int shrinkRuns) {
        String describe() {
            StringBuilder text = new StringBuilder();
            text.append(cls).append(": seed ").append(seed).append(", found after ").append(afterMillis)
                    .append(" ms of search, ").append(originalSteps).append(" steps shrunk to ").append(shrunk.size())
                    .append(" (").append(shrinkRuns).append(" runs)\n");
            for (int i = 0; i < shrunk.size(); i++) {
                text.append("    ").append(i).append(": ").append(shrunk.get(i)).append('\n');
            }
            text.append("    => ").append(failure.replace("\n", "\n       ")).append('\n');
            return text.toString();
        }
    }

    record Report(String target, Budget budget, int sequences, long steps, long millis, List<Found> found,
                  Map<String, Long> counts) {
        String summary() {
            StringBuilder text = new StringBuilder();
            text.append("guard model on ").append(target).append(": ").append(sequences).append(" sequences, ")
                    .append(steps).append(" steps, ").append(millis).append(" ms, seed ").append(budget.seed())
                    .append(" (rerun: -Dfencing.guardmodel.seed=").append(budget.seed()).append("), ")
                    .append(found.size()).append(" failing\n  write attempts (verdict outcome: count): ").append(counts)
                    .append('\n');
            for (Found f : found) {
                text.append(f.describe());
            }
            return text.toString();
        }
    }

    private final Target target;
    private final List<Worker> workers = new ArrayList<>();
    /** Write attempts by verdict and outcome, over the search (shrinking runs not counted). */
    private final Map<String, Long> counts = new TreeMap<>();
    private boolean counting;

    private void count(String what) {
        if (counting) {
            counts.merge(what, 1L, Long::sum);
        }
    }

    GuardModel(Target target) {
        this.target = target;
        workers.add(new Worker("model-T0", false));
        workers.add(new Worker("model-T1", false));
        if (Runtime.version().feature() >= 21) {
            workers.add(new Worker("model-T2-virtual", true));
            workers.add(new Worker("model-T3-virtual", true));
        }
    }

    /** The workers that run steps: two platform threads, and two virtual ones on Java 21+. */
    List<String> workerNames() {
        return workers.stream().map(w -> w.name).toList();
    }

    Report search(Budget budget) throws Exception {
        long start = System.nanoTime();
        long searchNanos = 0;
        int sequences = 0;
        long steps = 0;
        List<Found> found = new ArrayList<>();
        Set<String> classes = new HashSet<>();
        Set<Kind> excluded = new HashSet<>();
        try {
            while (searchNanos < TimeUnit.SECONDS.toNanos(budget.seconds())
                    && (budget.tries() == 0 || sequences < budget.tries())) {
                long seed = budget.seed() + sequences;
                Random random = new Random(seed);
                List<Op> ops = generate(random, 8 + random.nextInt(Math.max(1, budget.maxSteps() - 7)), workers.size(),
                        excluded);
                sequences++;
                steps += ops.size();
                long before = System.nanoTime();
                counting = true;
                String failure;
                try {
                    failure = runOnce(ops, seed);
                } finally {
                    counting = false;
                }
                searchNanos += System.nanoTime() - before;
                if (failure == null) {
                    continue;
                }
                long at = TimeUnit.NANOSECONDS.toMillis(searchNanos);
                Shrunk shrunk = shrink(ops, seed, failure, budget.shrinkSeconds());
                String cls = classify(shrunk.ops, shrunk.failure);
                found.add(new Found(seed, at, ops.size(), shrunk.ops, shrunk.failure, cls, shrunk.runs));
                classes.add(cls);
                // collecting: once a class is found, leave out what it needs, so that the search goes on
                // to the others (a raw script's mark is found in most sequences that have one)
                if (cls.startsWith("class 3")) {
                    excluded.addAll(List.of(Kind.RAW_SCRIPT, Kind.MIGRATE));
                } else if (cls.startsWith("class 2")) {
                    excluded.add(Kind.FAIL);
                } else if (cls.startsWith("class 1")) {
                    excluded.add(Kind.OPEN_RAW);
                }
                if (!budget.collect() || classes.stream().filter(c -> c.startsWith("class")).count() == 3) {
                    break;
                }
            }
        } finally {
            for (Worker worker : workers) {
                worker.close();
            }
        }
        return new Report(target.name(), budget, sequences, steps,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), found, new TreeMap<>(counts));
    }

    private record Shrunk(List<Op> ops, String failure, int runs) {
    }

    /** Drops chunks of steps, halves down to single steps, while the sequence still fails. */
    private Shrunk shrink(List<Op> ops, long seed, String failure, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Op> current = new ArrayList<>(ops);
        String currentFailure = failure;
        int runs = 0;
        Integer failedAt = stepOf(failure);
        if (failedAt != null && failedAt + 1 < current.size()) {
            List<Op> cut = new ArrayList<>(current.subList(0, failedAt + 1));
            String again = runOnce(cut, seed);
            runs++;
            if (again != null) {
                current = cut;
                currentFailure = again;
            }
        }
        for (int chunk = Math.max(1, current.size() / 2); chunk >= 1 && System.nanoTime() < deadline; chunk /= 2) {
            boolean progress = true;
            while (progress && System.nanoTime() < deadline) {
                progress = false;
                for (int from = current.size() - chunk; from >= 0 && System.nanoTime() < deadline; from -= chunk) {
                    List<Op> candidate = new ArrayList<>(current.subList(0, from));
                    candidate.addAll(current.subList(Math.min(current.size(), from + chunk), current.size()));
                    if (candidate.isEmpty()) {
                        continue;
                    }
                    String again;
                    try {
                        again = runOnce(candidate, seed);
                    } catch (Infrastructure notAFinding) {
                        again = null;
                    }
                    runs++;
                    if (again != null) {
                        current = candidate;
                        currentFailure = again;
                        progress = true;
                    }
                }
            }
            if (chunk == 1) {
                break;
            }
        }
        return new Shrunk(current, currentFailure, runs);
    }

    private static Integer stepOf(String failure) {
        if (failure.startsWith("step ")) {
            int end = failure.indexOf(' ', 5);
            try {
                return Integer.parseInt(failure.substring(5, end).replace(":", ""));
            } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
                return null;
            }
        }
        return null;
    }

    /** A commit-like end that the model records as a rollback (a statement had failed in the transaction). */
    private static final java.util.regex.Pattern ROLLED_BACK_COMMIT =
            java.util.regex.Pattern.compile("(COMMIT|COMMIT_TEXT|AUTOCOMMIT_ON)\\([^)]*\\) \\S+ rolled back");

    /** Names the issue-27 class a shrunk counterexample shows (a heuristic for the report; read the steps). */
    static String classify(List<Op> ops, String failure) {
        boolean raw = failure.contains("-> raw#");
        Set<Kind> kinds = new LinkedHashSet<>();
        ops.forEach(op -> kinds.add(op.kind()));
        if (kinds.contains(Kind.RAW_SCRIPT) || kinds.contains(Kind.MIGRATE)) {
            return "class 3 (migration mark outlives its migration)";
        }
        if (!raw && (kinds.contains(Kind.FAIL) || ROLLED_BACK_COMMIT.matcher(failure).find())) {
            return "class 2 (commit of a failed transaction recorded as a commit)";
        }
        if (raw) {
            return "class 1 (pool leak: a fenced statement's fence stays on the pooled connection)";
        }
        return "other";
    }

    /** Runs one sequence on a fresh pool and reset rows; null when the database did what the model says. */
    String runOnce(List<Op> ops, long seed) throws Exception {
        resetRows();
        int poolSize = target.pgBouncer() ? 2 : 1 + (int) Math.floorMod(seed * 31 + ops.size(), 2L);
        try (Run run = new Run(poolSize)) {
            for (int i = 0; i < ops.size(); i++) {
                try {
                    run.step(i, ops.get(i));
                } catch (Discrepancy d) {
                    return "step " + i + ": " + d.getMessage() + "\n(pool of " + poolSize + "; trace: "
                            + String.join("; ", run.trace) + ")";
                }
            }
            return null;
        }
    }

    private void resetRows() throws SQLException {
        if (target.pgBouncer()) {
            // the bouncer's one server session outlives our pools: start each sequence without what the last left
            try (Connection connection = target.pooled().getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("RESET ALL");
            }
        }
        DatabaseGuard.migrate(target.direct(), "guard model: reset the rows between sequences", connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("DELETE FROM " + target.orders());
                statement.executeUpdate("INSERT INTO " + target.orders() + " (id, status, last_fence) VALUES (1, 'init', "
                        + INITIAL_FENCE + "), (2, 'init', " + INITIAL_FENCE + "), (3, 'init', " + INITIAL_FENCE + ")");
            }
        });
    }

    // ---- one run ----------------------------------------------------------------------------------------

    /** A row as the model expects it. */
    record Row(String status, long fence) {
        @Override
        public String toString() {
            return status + "@" + fence;
        }
    }

    /** A row changed by a write that lands when its transaction commits (after null: deleted). */
    record Change(int id, Row after) {
    }

    /** A fence scope the sequence entered. */
    private static final class ScopeRecord {
        final int worker;
        final long fence;
        final Fence.Scope scope;
        boolean closed;

        ScopeRecord(int worker, long fence, Fence.Scope scope) {
            this.worker = worker;
            this.fence = fence;
            this.scope = scope;
        }
    }

    private record SavepointRecord(String name, Savepoint jdbc, int pending) {
    }

    /** A checkout of the pool, fenced or raw, and what the model knows of its transaction. */
    private static final class Handle {
        final String name;
        final Connection connection;
        final Connection pooled; // the pool's connection (behind the fenced one)
        final boolean fenced;
        final Object session;
        boolean autoCommit = true;
        boolean failed;
        final List<Change> pending = new ArrayList<>();
        final List<SavepointRecord> savepoints = new ArrayList<>();
        final Set<Integer> touched = new HashSet<>();

        Handle(String name, Connection connection, Connection pooled, boolean fenced, Object session) {
            this.name = name;
            this.connection = connection;
            this.pooled = pooled;
            this.fenced = fenced;
            this.session = session;
        }
    }

    /** What the model says of one write attempt. */
    private enum Verdict { ALLOW, REFUSE, NOTHING, UNJUDGED }

    private final class Run implements AutoCloseable {
        final int poolSize;
        final HikariDataSource pool;
        final FencingDataSource fenced;
        final Connection readback;
        final List<Handle> handles = new ArrayList<>();
        final List<ScopeRecord> scopes = new ArrayList<>();
        final TreeMap<Integer, Row> rows = new TreeMap<>();
        final Set<Object> marked = new HashSet<>();
        final List<String> trace = new ArrayList<>();
        int opened;

        Run(int poolSize) throws SQLException {
            this.poolSize = poolSize;
            HikariConfig config = new HikariConfig();
            config.setPoolName(UniqueNames.next("guardmodel_"));
            config.setDataSource(target.pooled());
            config.setMaximumPoolSize(poolSize);
            config.setMinimumIdle(target.pgBouncer() ? 0 : poolSize);
            config.setConnectionTimeout(5_000);
            if (target.poolInitSql() != null) {
                config.setConnectionInitSql(target.poolInitSql());
            }
            if (target.db() == Db.MARIADB) {
                config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
            }
            pool = new HikariDataSource(config);
            fenced = new FencingDataSource(pool, target.config());
            readback = target.direct().getConnection();
            for (int id = 1; id <= 3; id++) {
                rows.put(id, new Row("init", INITIAL_FENCE));
            }
            awaitFullPool();
        }

        void awaitFullPool() {
            if (target.pgBouncer()) {
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (pool.getHikariPoolMXBean().getTotalConnections() < poolSize && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        long fenceOf(int worker) {
            for (int i = scopes.size() - 1; i >= 0; i--) {
                ScopeRecord scope = scopes.get(i);
                if (scope.worker == worker && !scope.closed) {
                    return scope.fence;
                }
            }
            return 0;
        }

        Handle handle(Op op) {
            return handles.isEmpty() ? null : handles.get(Math.floorMod(op.target(), handles.size()));
        }

        /** Behind pgbouncer (one server session): another checkout's open transaction holds it. */
        boolean serverBusyForOthers(Handle self) throws SQLException {
            if (!target.pgBouncer()) {
                return false;
            }
            for (Handle other : handles) {
                if (other != self && pgState(other) != org.postgresql.core.TransactionState.IDLE) {
                    return true;
                }
            }
            return false;
        }

        /** A row another checkout's open transaction may hold a lock on: writing it would wait. */
        boolean heldByOthers(Handle self, int row) {
            for (Handle other : handles) {
                if (other != self && other.touched.contains(row)) {
                    return true;
                }
            }
            return false;
        }

        org.postgresql.core.TransactionState pgState(Handle handle) throws SQLException {
            return handle.pooled.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState();
        }

        Map<Integer, Row> view(Handle handle) {
            TreeMap<Integer, Row> view = new TreeMap<>(rows);
            if (handle != null) {
                apply(view, handle.pending);
            }
            return view;
        }

        void apply(Map<Integer, Row> to, List<Change> changes) {
            for (Change change : changes) {
                if (change.after() == null) {
                    to.remove(change.id());
                } else {
                    to.put(change.id(), change.after());
                }
            }
        }

        void note(int i, Op op, String what) {
            trace.add(i + ":" + op + (what.isEmpty() ? "" : " " + what));
        }

        void step(int i, Op op) throws Exception {
            Worker worker = workers.get(Math.floorMod(op.worker(), workers.size()));
            switch (op.kind()) {
                case ENTER -> {
                    Fence.Scope scope = worker.call(() -> Fence.enter(op.fence()));
                    scopes.add(new ScopeRecord(Math.floorMod(op.worker(), workers.size()), op.fence(), scope));
                    note(i, op, "");
                }
                case CLOSE_SCOPE -> {
                    List<ScopeRecord> open = scopes.stream().filter(s -> !s.closed).toList();
                    if (open.isEmpty()) {
                        return;
                    }
                    ScopeRecord scope = open.get(Math.floorMod(op.target(), open.size()));
                    worker.call(() -> {
                        scope.scope.close();
                        return null;
                    });
                    scope.closed = true;
                    note(i, op, "closes T" + scope.worker + "'s " + scope.fence);
                }
                case OPEN_FENCED, OPEN_RAW -> {
                    if (!open(i, op, worker)) {
                        count("steps skipped");
                        return;
                    }
                }
                case MIGRATE, RAW_SCRIPT -> script(i, op, worker);
                default -> {
                    if (handles.isEmpty() && op.kind() != Kind.CLOSE && op.kind() != Kind.ABORT) {
                        // a step on a connection when none is open checks one out first (raw: variant bit 4)
                        open(i, new Op((op.variant() & 4) == 4 ? Kind.OPEN_RAW : Kind.OPEN_FENCED, op.worker(), 0, 0, 0, 0),
                                worker);
                    }
                    Handle handle = handle(op);
                    if (handle == null || serverBusyForOthers(handle)) {
                        count("steps skipped");
                        return;
                    }
                    onConnection(i, op, worker, handle);
                }
            }
            compare(i, op);
        }

        boolean open(int i, Op op, Worker worker) throws Exception {
            if (handles.size() >= poolSize || serverBusyForOthers(null)) {
                return false;
            }
            boolean isFenced = op.kind() == Kind.OPEN_FENCED;
            Connection connection = worker.call(() -> isFenced ? fenced.getConnection() : pool.getConnection());
            Connection pooled = RawSession.behind(connection);
            Object session = target.pgBouncer() ? "the bouncer's server session" : pooled.unwrap(Connection.class);
            Handle handle = new Handle((isFenced ? "fenced#" : "raw#") + opened++, connection, pooled, isFenced, session);
            handles.add(handle);
            note(i, op, "-> " + handle.name);
            return true;
        }

        /** A sanctioned migration, or a raw script that marks its own session and writes. */
        void script(int i, Op op, Worker worker) throws Exception {
            if (handles.size() >= poolSize || serverBusyForOthers(null) || heldByOthers(null, op.row())) {
                return;
            }
            String tag = "m" + i;
            int row = op.row();
            int kind = op.variant() % 3; // 0 update, 1 insert, 2 delete
            String write = switch (kind) {
                case 0 -> "UPDATE " + target.orders() + " SET status = '" + tag + "' WHERE id = " + row;
                case 1 -> "INSERT INTO " + target.orders() + " (id, status) VALUES (" + row + ", '" + tag + "')";
                default -> "DELETE FROM " + target.orders() + " WHERE id = " + row;
            };
            Throwable failure;
            if (op.kind() == Kind.MIGRATE) {
                int outcome = op.variant() / 3; // 0 returns, 1 turns auto-commit off and throws, 2 hits an SQL error
                failure = worker.attempt(() -> DatabaseGuard.migrate(pool, "guard model step " + i, connection -> {
                    if (outcome == 1) {
                        connection.setAutoCommit(false);
                    }
                    try (Statement statement = connection.createStatement()) {
                        statement.executeUpdate(write);
                        if (outcome == 1) {
                            throw new IllegalStateException("the migration's work failed");
                        }
                        if (outcome == 2) {
                            statement.executeQuery("SELECT * FROM " + target.schema() + ".no_such_table").close();
                        }
                    }
                }));
            } else {
                Object[] session = new Object[1];
                failure = worker.attempt(() -> {
                    try (Connection raw = pool.getConnection(); Statement statement = raw.createStatement()) {
                        session[0] = target.pgBouncer() ? "the bouncer's server session" : raw.unwrap(Connection.class);
                        statement.execute(target.rawMark());
                        if (op.variant() != 3) {
                            statement.executeUpdate(write);
                        }
                    }
                });
                if (session[0] != null) {
                    marked.add(session[0]);
                }
                if (op.variant() == 3) {
                    note(i, op, failure == null ? "marked, no write" : "failed: " + failure);
                    return;
                }
            }
            boolean landed = failure == null;
            if (op.kind() == Kind.MIGRATE && op.variant() / 3 == 2) {
                // the work's write ran before its error: in auto-commit it may stay (MariaDB, H2, and the old
                // driver on PostgreSQL) or be rolled back with the work's one transaction; either is allowed
                landed = !Objects.equals(readRow(row), rows.get(row));
            }
            if (landed) {
                Row before = rows.get(row);
                switch (kind) {
                    case 0 -> {
                        if (before != null) {
                            rows.put(row, new Row(tag, before.fence()));
                        }
                    }
                    case 1 -> rows.putIfAbsent(row, new Row(tag, 0));
                    default -> rows.remove(row);
                }
            }
            if (failure != null && isGuardRefusal(failure) && !(op.kind() == Kind.MIGRATE && op.variant() / 3 != 0)) {
                throw new Discrepancy(op + " was refused by the guard: " + failure);
            }
            note(i, op, failure == null ? "ok" : "failed: " + brief(failure));
        }

        void onConnection(int i, Op op, Worker worker, Handle handle) throws Exception {
            switch (op.kind()) {
                case READ, UPDATE, INSERT, DELETE, CALL -> write(i, op, worker, handle);
                case FAIL -> {
                    Throwable failure = worker.attempt(() -> {
                        try (Statement statement = handle.connection.createStatement()) {
                            statement.executeQuery("SELECT * FROM " + target.schema() + ".no_such_table").close();
                        }
                    });
                    afterStatement(handle, 0);
                    note(i, op, handle.name + (failure == null ? " did not fail" : " failed"));
                }
                case AUTOCOMMIT_OFF -> {
                    Throwable failure = worker.attempt(() -> handle.connection.setAutoCommit(false));
                    if (failure == null) {
                        handle.autoCommit = false;
                    }
                    note(i, op, handle.name + (failure == null ? "" : " failed: " + brief(failure)));
                }
                case AUTOCOMMIT_ON, COMMIT, COMMIT_TEXT, ROLLBACK, ROLLBACK_TEXT -> end(i, op, worker, handle);
                case SAVEPOINT -> {
                    if (handle.autoCommit) {
                        return;
                    }
                    String name = "SP" + i;
                    boolean text = (op.variant() & 1) == 1;
                    Savepoint[] jdbc = new Savepoint[1];
                    Throwable failure = worker.attempt(() -> {
                        if (text) {
                            try (Statement statement = handle.connection.createStatement()) {
                                statement.execute("SAVEPOINT " + name);
                            }
                        } else {
                            jdbc[0] = handle.connection.setSavepoint(name);
                        }
                    });
                    if (failure == null) {
                        handle.savepoints.add(new SavepointRecord(name, jdbc[0], handle.pending.size()));
                    }
                    afterStatement(handle, 0);
                    note(i, op, handle.name + " " + name + (failure == null ? "" : " failed: " + brief(failure)));
                }
                case ROLLBACK_TO -> {
                    if (handle.autoCommit || handle.savepoints.isEmpty()) {
                        return;
                    }
                    int index = Math.floorMod(op.variant(), handle.savepoints.size());
                    SavepointRecord savepoint = handle.savepoints.get(index);
                    boolean text = savepoint.jdbc() == null || (op.variant() & 2) == 2;
                    Throwable failure = worker.attempt(() -> {
                        if (text) {
                            try (Statement statement = handle.connection.createStatement()) {
                                statement.execute("ROLLBACK TO SAVEPOINT " + savepoint.name());
                            }
                        } else {
                            handle.connection.rollback(savepoint.jdbc());
                        }
                    });
                    if (failure == null) {
                        while (handle.pending.size() > savepoint.pending()) {
                            handle.pending.remove(handle.pending.size() - 1);
                        }
                        handle.savepoints.subList(index + 1, handle.savepoints.size()).clear();
                    }
                    afterStatement(handle, 0);
                    note(i, op, handle.name + " to " + savepoint.name() + (text ? " (text)" : "")
                            + (failure == null ? "" : " failed: " + brief(failure)));
                }
                case CLOSE -> {
                    Throwable failure = worker.attempt(handle.connection::close);
                    forget(handle, false);
                    note(i, op, handle.name + (failure == null ? "" : " failed: " + brief(failure)));
                }
                case ABORT -> {
                    Throwable failure = worker.attempt(() -> {
                        handle.connection.abort(Runnable::run);
                        // FencedConnection.abort leaves the pool's proxy checked out: hand it back, evicted
                        pool.evictConnection(handle.pooled);
                        try {
                            handle.pooled.close();
                        } catch (SQLException alreadyGone) {
                            // the physical connection is closed: the pool drops it
                        }
                    });
                    forget(handle, true);
                    awaitFullPool();
                    note(i, op, handle.name + (failure == null ? "" : " failed: " + brief(failure)));
                }
                default -> throw new IllegalStateException(op.toString());
            }
        }

        void forget(Handle handle, boolean sessionEnded) {
            handles.remove(handle);
            if (sessionEnded && !target.pgBouncer()) {
                marked.remove(handle.session);
            }
        }

        /** After a statement on {@code handle}: the rows its open transaction may lock, and PostgreSQL's failed state. */
        void afterStatement(Handle handle, int row) throws SQLException {
            if (handle.autoCommit) {
                return;
            }
            if (row != 0) {
                handle.touched.add(row);
            }
            if (target.db() == Db.POSTGRESQL) {
                handle.failed = pgState(handle) == org.postgresql.core.TransactionState.FAILED;
            }
        }

        void end(int i, Op op, Worker worker, Handle handle) throws Exception {
            boolean commits = op.kind() == Kind.AUTOCOMMIT_ON || op.kind() == Kind.COMMIT || op.kind() == Kind.COMMIT_TEXT;
            if (handle.autoCommit && op.kind() != Kind.AUTOCOMMIT_ON) {
                return;
            }
            boolean wasInTransaction = !handle.autoCommit;
            boolean failedBefore = handle.failed;
            Throwable failure = worker.attempt(() -> {
                switch (op.kind()) {
                    case AUTOCOMMIT_ON -> handle.connection.setAutoCommit(true);
                    case COMMIT -> handle.connection.commit();
                    case ROLLBACK -> handle.connection.rollback();
                    default -> {
                        try (Statement statement = handle.connection.createStatement()) {
                            statement.execute(op.kind() == Kind.COMMIT_TEXT ? "COMMIT" : "ROLLBACK");
                        }
                    }
                }
            });
            boolean ended = failure == null;
            if (!ended && target.db() == Db.POSTGRESQL && wasInTransaction) {
                ended = pgState(handle) == org.postgresql.core.TransactionState.IDLE;
                commits = false;
            }
            String outcome = "";
            if (ended && wasInTransaction) {
                boolean committed = commits && !failedBefore;
                if (committed) {
                    apply(rows, handle.pending);
                }
                outcome = (committed ? "committed " : "rolled back ") + handle.pending.size() + " change(s)";
                handle.pending.clear();
                handle.savepoints.clear();
                handle.touched.clear();
                handle.failed = false;
            }
            if (op.kind() == Kind.AUTOCOMMIT_ON && failure == null) {
                handle.autoCommit = true;
            }
            note(i, op, handle.name + " " + outcome + (failure == null ? "" : " failed: " + brief(failure)));
        }

        /** A read or a write attempt, judged by the model. */
        void write(int i, Op op, Worker worker, Handle handle) throws Exception {
            int row = op.row();
            if (op.kind() != Kind.READ && heldByOthers(handle, row)) {
                return;
            }
            String tag = "w" + i;
            boolean prepared = (op.variant() & 1) == 1;
            String orders = target.orders();
            String text = switch (op.kind()) {
                case READ -> (op.variant() & 2) == 2 ? "SELECT COUNT(*) FROM " + orders
                        : "SELECT status, last_fence FROM " + orders + " WHERE id = " + (prepared ? "?" : row);
                case UPDATE -> "UPDATE " + orders + " SET status = " + (prepared ? "?" : "'" + tag + "'") + " WHERE id = "
                        + (prepared ? "?" : row);
                case INSERT -> "INSERT INTO " + orders + " (id, status) VALUES (" + (prepared ? "?, ?" : row + ", '" + tag + "'") + ")";
                case DELETE -> "DELETE FROM " + orders + " WHERE id = " + (prepared ? "?" : row);
                default -> "SELECT " + target.schema() + ".mark(" + (prepared ? "?, ?" : row + ", '" + tag + "'") + ")";
            };
            long fence = handle.fenced ? fenceOf(Math.floorMod(op.worker(), workers.size())) : 0;
            Verdict verdict = op.kind() == Kind.READ ? Verdict.NOTHING : verdict(handle, op.kind(), row, fence);
            Throwable failure = worker.attempt(() -> {
                if (prepared) {
                    try (PreparedStatement statement = handle.connection.prepareStatement(text)) {
                        switch (op.kind()) {
                            case READ -> {
                                if ((op.variant() & 2) == 0) {
                                    statement.setLong(1, row);
                                }
                            }
                            case UPDATE -> {
                                statement.setString(1, tag);
                                statement.setLong(2, row);
                            }
                            case INSERT, CALL -> {
                                statement.setLong(1, row);
                                statement.setString(2, tag);
                            }
                            default -> statement.setLong(1, row);
                        }
                        if (statement.execute()) {
                            statement.getResultSet().close();
                        }
                    }
                } else {
                    try (Statement statement = handle.connection.createStatement()) {
                        if (statement.execute(text)) {
                            try (ResultSet rows = statement.getResultSet()) {
                                while (rows.next()) {
                                    rows.getObject(1);
                                }
                            }
                        }
                    }
                }
            });
            afterStatement(handle, op.kind() == Kind.READ ? 0 : row);
            String seen = handle.name + " fence " + (fence == 0 ? "none" : fence) + " " + verdict + " -> "
                    + (failure == null ? "ok" : brief(failure));
            note(i, op, seen);
            count((handle.fenced ? "fenced " : "raw ") + verdict + " " + (failure == null ? "ok" : isGuardRefusal(failure)
                    ? "refused" : "failed"));
            Row before = view(handle).get(row);
            switch (verdict) {
                case ALLOW -> {
                    if (failure == null) {
                        land(handle, change(op.kind(), row, tag, fence, before));
                    } else if (isGuardRefusal(failure)) {
                        throw new Discrepancy(op + " on " + seen + ": the model allows this write (row " + row + " "
                                + before + "), the guard refused it");
                    }
                }
                case UNJUDGED -> {
                    if (failure == null) {
                        land(handle, change(op.kind(), row, tag, -1, before));
                    }
                }
                default -> {
                    // refused or nothing to change: the model's rows stay; the read back shows what landed
                }
            }
        }

        Verdict verdict(Handle handle, Kind kind, int row, long fence) {
            Row current = view(handle).get(row);
            if (handle.failed) {
                return Verdict.NOTHING; // PostgreSQL runs nothing in a failed transaction
            }
            if (!handle.fenced && marked.contains(handle.session)) {
                return Verdict.UNJUDGED; // a raw session that marked itself: the guard does not stop it
            }
            if (kind != Kind.INSERT && current == null) {
                return Verdict.NOTHING;
            }
            if (kind == Kind.INSERT && current != null) {
                return Verdict.NOTHING; // a duplicate key, whoever writes
            }
            if (fence == 0) {
                return Verdict.REFUSE;
            }
            return kind != Kind.INSERT && current.fence() > fence ? Verdict.REFUSE : Verdict.ALLOW;
        }

        /** The change a write makes; fence -1: a marked session's write, which leaves the fence column as it was. */
        Change change(Kind kind, int row, String tag, long fence, Row before) {
            return switch (kind) {
                case DELETE -> before == null ? null : new Change(row, null);
                case INSERT -> before != null ? null : new Change(row, new Row(tag, fence < 0 ? 0 : fence));
                default -> before == null ? null : new Change(row, new Row(tag, fence < 0 ? before.fence() : fence));
            };
        }

        void land(Handle handle, Change change) {
            if (change == null) {
                return;
            }
            if (handle.autoCommit) {
                apply(rows, List.of(change));
            } else {
                handle.pending.add(change);
            }
        }

        Row readRow(int id) throws SQLException {
            try (PreparedStatement select = readback.prepareStatement(
                    "SELECT status, last_fence FROM " + target.orders() + " WHERE id = ?")) {
                select.setLong(1, id);
                try (ResultSet result = select.executeQuery()) {
                    return result.next() ? new Row(result.getString(1), result.getLong(2)) : null;
                }
            }
        }

        /** Reads the fenced table on a connection of its own and compares it with the model's rows. */
        void compare(int i, Op op) throws SQLException {
            TreeMap<Integer, Row> actual = new TreeMap<>();
            try (Statement statement = readback.createStatement();
                 ResultSet result = statement.executeQuery("SELECT id, status, last_fence FROM " + target.orders())) {
                while (result.next()) {
                    actual.put(result.getInt(1), new Row(result.getString(2), result.getLong(3)));
                }
            }
            if (!actual.equals(rows)) {
                throw new Discrepancy("after " + op + " the database holds " + actual + ", the model " + rows);
            }
        }

        @Override
        public void close() throws Exception {
            Exception problem = null;
            for (Handle handle : List.copyOf(handles)) {
                try {
                    workers.get(0).attempt(handle.connection::close);
                } catch (Exception e) {
                    problem = e;
                }
            }
            for (ScopeRecord scope : scopes) {
                if (!scope.closed) {
                    workers.get(scope.worker).call(() -> {
                        scope.scope.close();
                        return null;
                    });
                }
            }
            // a scope closed from another thread leaves its frame until its own thread looks again
            for (Worker worker : workers) {
                worker.call(Fence::current);
            }
            pool.close();
            readback.close();
            if (problem != null) {
                throw problem;
            }
        }
    }

    static boolean isGuardRefusal(Throwable failure) {
        for (Throwable e = failure; e != null; e = e.getCause()) {
            if (e instanceof StaleFenceException || e instanceof MissingFenceException) {
                return true;
            }
            if (e instanceof SQLException sql && ("ZF001".equals(sql.getSQLState()) || "ZF002".equals(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    static String brief(Throwable failure) {
        String message = String.valueOf(failure.getMessage());
        int newline = message.indexOf('\n');
        if (newline > 0) {
            message = message.substring(0, newline);
        }
        if (message.length() > 140) {
            message = message.substring(0, 140) + "..";
        }
        String state = failure instanceof SQLException sql && sql.getSQLState() != null ? sql.getSQLState() + " " : "";
        return failure.getClass().getSimpleName() + " " + state + message;
    }

    /** The database did what the model does not allow, or refused what it allows. */
    static final class Discrepancy extends RuntimeException {
        Discrepancy(String message) {
            super(message, null, false, false);
        }
    }

    /** The test's machinery failed (a step hung): not a finding. */
    static final class Infrastructure extends RuntimeException {
        Infrastructure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @FunctionalInterface
    interface SqlAction {
        void run() throws Exception;
    }

    /** One thread (platform or virtual) that runs the steps given to it, one at a time, with its own fence scopes. */
    static final class Worker implements AutoCloseable {
        private static final long STEP_SECONDS = 60;
        private final FutureTask<Object> stop = new FutureTask<>(() -> null);
        final String name;
        private final BlockingQueue<FutureTask<?>> queue = new LinkedBlockingQueue<>();
        private final Thread thread;

        Worker(String name, boolean virtual) {
            this.name = name;
            Runnable loop = () -> {
                try {
                    for (FutureTask<?> task = queue.take(); task != stop; task = queue.take()) {
                        task.run();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            thread = virtual ? virtualThread(name, loop) : new Thread(loop, name);
            if (!virtual) {
                thread.setDaemon(true);
            }
            thread.start();
        }

        private static Thread virtualThread(String name, Runnable loop) {
            try {
                Class<?> builder = Class.forName("java.lang.Thread$Builder");
                Object ofVirtual = Thread.class.getMethod("ofVirtual").invoke(null);
                ofVirtual = builder.getMethod("name", String.class).invoke(ofVirtual, name);
                return (Thread) builder.getMethod("unstarted", Runnable.class).invoke(ofVirtual, loop);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("no virtual threads on Java " + Runtime.version(), e);
            }
        }

        boolean isVirtual() {
            try {
                return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
            } catch (ReflectiveOperationException e) {
                return false;
            }
        }

        <T> T call(Callable<T> work) throws Exception {
            FutureTask<T> task = new FutureTask<>(work);
            queue.add(task);
            try {
                return task.get(STEP_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception cause) {
                    throw cause;
                }
                throw new IllegalStateException(e.getCause());
            } catch (TimeoutException e) {
                throw new Infrastructure(name + " did not finish a step in " + STEP_SECONDS + " s", e);
            }
        }

        /** Runs {@code action} here; its failure is returned, not thrown. */
        Throwable attempt(SqlAction action) throws Exception {
            return call(() -> {
                try {
                    action.run();
                    return null;
                } catch (Exception e) {
                    return e;
                }
            });
        }

        @Override
        public void close() {
            queue.add(stop);
        }
    }
}
