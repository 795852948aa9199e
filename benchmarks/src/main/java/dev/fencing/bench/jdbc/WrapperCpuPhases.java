package dev.fencing.bench.jdbc;

import dev.fencing.Fence;
import dev.fencing.bench.stub.StubDataSource;

import javax.sql.DataSource;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * {@link WrapperBenchmark}'s three methods on a loaded machine, as thread CPU time per operation
 * (what JMH's wall clock mixes with waiting for a CPU): each method runs {@code phases} phases of
 * {@code opsPerPhase} operations over the no-I/O stub, and the median and minimum of the second
 * half of the phases are printed, with the bytes allocated per operation. Run two jars alternately
 * to compare them.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.jdbc.WrapperCpuPhases [phases=10] [opsPerPhase=1000000] [wrapper=FENCING]</pre>
 */
public final class WrapperCpuPhases {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Read after the run, so the JIT cannot drop the executions. */
    private static long rowsChanged;

    private WrapperCpuPhases() {
    }

    @SuppressWarnings("try") // the fence scope is used by the statements inside it
    public static void main(String[] args) throws Exception {
        int phases = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int opsPerPhase = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        Wrappers wrapper = args.length > 2 ? Wrappers.valueOf(args[2]) : Wrappers.FENCING;
        DataSource dataSource = wrapper.wrap(new StubDataSource(), "orders");
        try (Fence.Scope fence = Fence.enter(42); Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement(WrapperBenchmark.FENCED_UPDATE);
             PreparedStatement unfenced = connection.prepareStatement(WrapperBenchmark.UNFENCED_UPDATE)) {
            String[] names = {"execute", "prepareAndExecute", "executeUnfenced"};
            for (int method = 0; method < names.length; method++) {
                double[] nanos = new double[phases];
                long bytes = 0;
                for (int phase = 0; phase < phases; phase++) {
                    long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
                    long cpuBefore = THREADS.getCurrentThreadCpuTime();
                    for (int i = 0; i < opsPerPhase; i++) {
                        rowsChanged += run(method, connection, update, unfenced, i);
                    }
                    nanos[phase] = (THREADS.getCurrentThreadCpuTime() - cpuBefore) / (double) opsPerPhase;
                    bytes = (THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore) / opsPerPhase;
                }
                double[] settled = Arrays.copyOfRange(nanos, phases / 2, phases);
                Arrays.sort(settled);
                System.out.printf("%s %s cpu ns/op median %.1f min %.1f, %d B/op%n", wrapper, names[method],
                        settled[settled.length / 2], settled[0], bytes);
            }
        }
        System.out.println("rows changed: " + rowsChanged);
    }

    private static int run(int method, Connection connection, PreparedStatement update, PreparedStatement unfenced,
                           long id) throws SQLException {
        if (method == 0) {
            update.setString(1, "paid");
            update.setLong(2, id);
            return update.executeUpdate();
        }
        if (method == 1) {
            try (PreparedStatement statement = connection.prepareStatement(WrapperBenchmark.FENCED_UPDATE)) {
                statement.setString(1, "paid");
                statement.setLong(2, id);
                return statement.executeUpdate();
            }
        }
        unfenced.setString(1, "Ada");
        unfenced.setLong(2, id);
        return unfenced.executeUpdate();
    }
}
