package dev.fencing.bench.jdbc;

import dev.fencing.Fence;
import dev.fencing.bench.stub.StubDataSource;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * {@link LiteralStatementBenchmark#distinctLiterals} (or {@code repeatedText}) measured in the
 * thread's own CPU time, for a machine too loaded for JMH's wall-clock score: phases of
 * {@code opsPerPhase} plain statements over the stub, each phase's CPU time and allocated bytes
 * per operation; prints the median of the phases after the first {@code warmup}. Two builds are
 * compared by running their jars alternately, several times.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.jdbc.LiteralPhases [phases=12] [opsPerPhase=100000] [wrapper=FENCING] [distinct|repeated] [warmup=4]</pre>
 */
public final class LiteralPhases {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Read after the run, so the JIT cannot drop the executions. */
    private static long rowsChanged;

    private LiteralPhases() {
    }

    @SuppressWarnings("try") // the fence scope is used by the statements inside it
    public static void main(String[] args) throws Exception {
        int phases = args.length > 0 ? Integer.parseInt(args[0]) : 12;
        int opsPerPhase = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        Wrappers wrapper = args.length > 2 ? Wrappers.valueOf(args[2]) : Wrappers.FENCING;
        boolean distinct = args.length <= 3 || args[3].equals("distinct");
        int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 4;
        DataSource dataSource = wrapper.wrap(new StubDataSource(), "orders");
        double[] cpu = new double[phases - warmup];
        double[] bytes = new double[phases - warmup];
        try (Fence.Scope fence = Fence.enter(42);
             Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement()) {
            long id = 1_000_000;
            for (int phase = 0; phase < phases; phase++) {
                long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
                long cpuBefore = THREADS.getCurrentThreadCpuTime();
                for (int i = 0; i < opsPerPhase; i++) {
                    rowsChanged += statement.executeUpdate(distinct ? LiteralStatementBenchmark.HEAD + ++id
                            : LiteralStatementBenchmark.REPEATED);
                }
                long spent = THREADS.getCurrentThreadCpuTime() - cpuBefore;
                long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;
                if (phase >= warmup) {
                    cpu[phase - warmup] = (double) spent / opsPerPhase;
                    bytes[phase - warmup] = (double) allocated / opsPerPhase;
                }
            }
        }
        Arrays.sort(cpu);
        Arrays.sort(bytes);
        System.out.printf(Locale.ROOT, "%s %s cpu ns/op median %.1f (min %.1f, max %.1f) B/op %.0f rows %d%n", wrapper,
                distinct ? "distinct" : "repeated", cpu[cpu.length / 2], cpu[0], cpu[cpu.length - 1],
                bytes[bytes.length / 2], rowsChanged);
    }
}
