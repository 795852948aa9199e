package dev.fencing.bench.lock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.bench.pg.Postgres;
import dev.fencing.lock.FencedLocks;
import dev.fencing.lock.JdbcFencedLocks;
import dev.fencing.lock.Lease;
import dev.fencing.lock.RedisFencedLocks;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.postgresql.ds.PGSimpleDataSource;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

/**
 * Issue 30, item 2: the first lock in a fresh JVM. Each run is a new JVM that creates one lock
 * client and takes its first lease, then a few more: {@link RedisFencedLocks}, Redisson's
 * {@code RFencedLock} (default single-server settings) and {@link JdbcFencedLocks} on PostgreSQL
 * through a HikariCP pool. The libraries take turns within each round (the order reversed every
 * other round), so that both Redis clients meet the same machine; the ratios are per round, then
 * the median over the rounds.
 *
 * <p>Per run: {@code create} (from the first line of {@code main}, so class loading counts; the
 * JVM's own start is the same for all and left out), {@code first} (the first acquire after
 * {@code create} returned), {@code later} (the median of the next acquires, each after a release),
 * {@code total} (create + first: the time to the first lease) and {@code cpu} (the child
 * process's CPU time up to the first lease, which background load inflates less than wall time).
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.lock.ColdStart [rounds]</pre>
 *
 * Redis: {@code FENCING_REDIS_URI}; PostgreSQL: {@code FENCING_PG_URL}. Default 10 rounds. With
 * {@code -Dcoldstart.baseline=<another benchmarks.jar>}, a fourth run per round takes
 * {@link RedisFencedLocks}' first lease from that jar (an older build, say), so that a change is
 * compared with what it replaces in the same rounds.
 */
public final class ColdStart {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration MAX_WAIT = Duration.ofSeconds(5);
    private static final int LATER_ACQUIRES = 5;
    private static final String PREFIX = "bench-cold:";
    private static final String REDISSON_NAME = "bench-cold-redisson:";
    private static final String TABLE = "bench_cold_locks";

    /** The lock clients compared; each runs in JVMs of its own. */
    enum Library {
        FENCING_REDIS, REDISSON, FENCING_JDBC_HIKARI, FENCING_REDIS_BASELINE
    }

    /** The jar of the {@link Library#FENCING_REDIS_BASELINE} runs, or null for none. */
    private static final String BASELINE_JAR = System.getProperty("coldstart.baseline");

    private static List<Library> compared() {
        List<Library> libraries = new ArrayList<>(List.of(Library.values()));
        if (BASELINE_JAR == null) {
            libraries.remove(Library.FENCING_REDIS_BASELINE);
        }
        return libraries;
    }

    /** One run's figures, in milliseconds. */
    record Run(double create, double first, double later, double cpu) {
        double total() {
            return create + first;
        }

        String line() {
            return String.format(Locale.ROOT, "RUN %.2f %.2f %.2f %.2f", create, first, later, cpu);
        }

        static Run parse(String line) {
            String[] parts = line.trim().split(" ");
            return new Run(Double.parseDouble(parts[1]), Double.parseDouble(parts[2]), Double.parseDouble(parts[3]),
                    Double.parseDouble(parts[4]));
        }
    }

    private ColdStart() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            System.out.println(child(Library.valueOf(args[1]), args[2]).line());
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        prepare();
        Map<Library, List<Run>> runs = new EnumMap<>(Library.class);
        for (Library library : compared()) {
            runs.put(library, new ArrayList<>());
        }
        System.out.println("round library              create ms  first ms  later ms  total ms  cpu ms");
        try {
            for (int round = 0; round < rounds; round++) {
                List<Library> order = compared();
                if (round % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (Library library : order) {
                    Run run = fork(library, "r" + round);
                    runs.get(library).add(run);
                    System.out.printf(Locale.ROOT, "%5d %-20s %9.1f %9.1f %9.2f %9.1f %7.0f%n", round, library, run.create(),
                            run.first(), run.later(), run.total(), run.cpu());
                }
            }
        } finally {
            Services.deleteKeys(PREFIX);
            Services.deleteKeys("redisson_lock_token:{" + REDISSON_NAME);
        }
        summarize(runs, rounds);
    }

    private static void summarize(Map<Library, List<Run>> runs, int rounds) {
        System.out.println();
        System.out.println("medians over " + rounds + " rounds (load " + load() + ")");
        System.out.println("library              create ms  first ms  later ms  total ms  cpu ms");
        for (Library library : runs.keySet()) {
            List<Run> of = runs.get(library);
            System.out.printf(Locale.ROOT, "%-20s %9.1f %9.1f %9.2f %9.1f %7.0f%n", library, median(of, Run::create),
                    median(of, Run::first), median(of, Run::later), median(of, Run::total), median(of, Run::cpu));
        }
        List<Run> ours = runs.get(Library.FENCING_REDIS);
        List<Run> theirs = runs.get(Library.REDISSON);
        double[] total = new double[rounds];
        double[] cpu = new double[rounds];
        double[] first = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            total[r] = ours.get(r).total() / theirs.get(r).total();
            cpu[r] = ours.get(r).cpu() / theirs.get(r).cpu();
            first[r] = ours.get(r).first() / theirs.get(r).first();
        }
        System.out.printf(Locale.ROOT, "same-run ratios RedisFencedLocks / Redisson (median of %d rounds): time to the first"
                + " lease %.2f, CPU to the first lease %.2f, first acquire %.2f%n", rounds, median(total), median(cpu),
                median(first));
        if (runs.containsKey(Library.FENCING_REDIS_BASELINE)) {
            List<Run> baseline = runs.get(Library.FENCING_REDIS_BASELINE);
            for (int r = 0; r < rounds; r++) {
                total[r] = ours.get(r).total() / baseline.get(r).total();
                cpu[r] = ours.get(r).cpu() / baseline.get(r).cpu();
                first[r] = ours.get(r).first() / baseline.get(r).first();
            }
            System.out.printf(Locale.ROOT, "same-run ratios RedisFencedLocks / baseline jar (median of %d rounds): time to the"
                    + " first lease %.2f, CPU to the first lease %.2f, first acquire %.2f%n", rounds, median(total), median(cpu),
                    median(first));
        }
    }

    /** The JDBC store's table, created once (outside the measured runs). */
    private static void prepare() throws Exception {
        PGSimpleDataSource plain = new PGSimpleDataSource();
        plain.setURL(Postgres.url());
        JdbcFencedLocks.builder(plain).tableName(TABLE).idleConnections(0).build().createTable();
        Services.deleteKeys(PREFIX);
    }

    private static Run fork(Library library, String tag) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        boolean baseline = library == Library.FENCING_REDIS_BASELINE;
        List<String> command = new ArrayList<>(List.of(java, "-cp", baseline ? BASELINE_JAR : System.getProperty("java.class.path"),
                ColdStart.class.getName(), "--child", (baseline ? Library.FENCING_REDIS : library).name(), tag));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> output = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                output.add(line);
            }
        }
        if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
            throw new IllegalStateException(library + " run failed:\n" + String.join("\n", output));
        }
        return output.stream().filter(line -> line.startsWith("RUN ")).findFirst().map(Run::parse)
                .orElseThrow(() -> new IllegalStateException(library + " printed no result:\n" + String.join("\n", output)));
    }

    /** One fresh JVM's first lease, and the ones after it. */
    private static Run child(Library library, String tag) throws Exception {
        String resource = "cold-" + tag + "-" + ProcessHandle.current().pid();
        switch (library) {
            case FENCING_REDIS:
                return fencingRedis(resource);
            case REDISSON:
                return redisson(resource);
            default:
                return fencingJdbc(resource);
        }
    }

    private static Run fencingRedis(String resource) {
        long started = System.nanoTime();
        try (RedisFencedLocks locks = RedisFencedLocks.builder(Services.REDIS_URI).keyPrefix(PREFIX).build()) {
            return firstAndLaterLeases(started, locks, resource);
        }
    }

    /** The first lease of {@code locks} (created since {@code started}), then the later ones. */
    private static Run firstAndLaterLeases(long started, FencedLocks locks, String resource) {
        long created = System.nanoTime();
        Lease first = locks.acquire(resource, TTL, MAX_WAIT);
        long leased = System.nanoTime();
        double cpu = cpuMillis();
        first.close();
        double[] later = new double[LATER_ACQUIRES];
        for (int i = 0; i < later.length; i++) {
            long before = System.nanoTime();
            Lease lease = locks.acquire(resource, TTL, MAX_WAIT);
            later[i] = millis(System.nanoTime() - before);
            lease.close();
        }
        return new Run(millis(created - started), millis(leased - created), median(later), cpu);
    }

    private static Run redisson(String resource) {
        long started = System.nanoTime();
        RedissonClient client = Services.redisson();
        try {
            long created = System.nanoTime();
            RFencedLock lock = client.getFencedLock(REDISSON_NAME + resource);
            Long token = lock.tryLockAndGetToken(MAX_WAIT.toMillis(), TTL.toMillis(), TimeUnit.MILLISECONDS);
            long leased = System.nanoTime();
            double cpu = cpuMillis();
            if (token == null) {
                throw new IllegalStateException("Redisson did not acquire " + resource);
            }
            lock.unlock();
            double[] later = new double[LATER_ACQUIRES];
            for (int i = 0; i < later.length; i++) {
                long before = System.nanoTime();
                lock.tryLockAndGetToken(MAX_WAIT.toMillis(), TTL.toMillis(), TimeUnit.MILLISECONDS);
                later[i] = millis(System.nanoTime() - before);
                lock.unlock();
            }
            client.getKeys().delete(REDISSON_NAME + resource);
            return new Run(millis(created - started), millis(leased - created), median(later), cpu);
        } finally {
            client.shutdown();
        }
    }

    /** A Hikari pool as an application would configure it, and the JDBC store on it. */
    private static Run fencingJdbc(String resource) {
        long started = System.nanoTime();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Postgres.url());
        config.setMaximumPoolSize(4);
        config.setPoolName("cold-start");
        try (HikariDataSource pool = new HikariDataSource(config);
                JdbcFencedLocks locks = JdbcFencedLocks.builder(pool).tableName(TABLE).build()) {
            return firstAndLaterLeases(started, locks, resource);
        }
    }

    private static double cpuMillis() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime()
                / 1e6;
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> figure) {
        return median(runs.stream().mapToDouble(figure).toArray());
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String load() {
        return String.format(Locale.ROOT, "%.1f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
