package dev.fencing.bench.jdbc;

import dev.fencing.Fence;
import dev.fencing.bench.stub.StubDataSource;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * {@link WrapperBenchmark#execute} on a loaded machine: JMH's score is wall-clock time, which on a
 * shared machine is mostly time spent waiting for a CPU. This runs the same statement over the
 * same stub in phases and splits each phase's wall time into the thread's own CPU time and its
 * run-queue wait (Linux {@code /proc/thread-self/schedstat}); it also reports bytes allocated per
 * operation and the heap in use after a full GC, which must stay flat: the driver keeps nothing per
 * execution.
 *
 * <pre>java -cp benchmarks.jar dev.fencing.bench.jdbc.ExecutePhases [phases=10] [opsPerPhase=2000000] [wrapper=FENCING]</pre>
 *
 * Exits with status 1 when the heap after GC grew by more than 1 MiB from the second phase to the last.
 */
public final class ExecutePhases {

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");
    private static final long HEAP_GROWTH_ALLOWED = 1 << 20;

    /** Read after the run, so the JIT cannot drop the executions. */
    private static long rowsChanged;

    private ExecutePhases() {
    }

    @SuppressWarnings("try") // the fence scope is used by the statements inside it
    public static void main(String[] args) throws Exception {
        int phases = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int opsPerPhase = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        Wrappers wrapper = args.length > 2 ? Wrappers.valueOf(args[2]) : Wrappers.FENCING;
        StubDataSource stub = new StubDataSource();
        DataSource dataSource = wrapper.wrap(stub, "orders");
        long heapAfterFirstPhase = -1;
        long heapAfterLastPhase = -1;
        try (Fence.Scope fence = Fence.enter(42);
             Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement(WrapperBenchmark.FENCED_UPDATE)) {
            System.out.println(wrapper + " sends: " + stub.lastConnection().lastPreparedSql());
            System.out.println("phase   wall ns/op   cpu ns/op   run-queue wait ns/op   B/op   heap after GC KiB");
            long id = 0;
            for (int phase = 0; phase < phases; phase++) {
                long[] schedBefore = schedstat();
                long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
                long cpuBefore = THREADS.getCurrentThreadCpuTime();
                long start = System.nanoTime();
                for (int i = 0; i < opsPerPhase; i++) {
                    update.setString(1, "paid");
                    update.setLong(2, ++id);
                    rowsChanged += update.executeUpdate();
                }
                long wall = System.nanoTime() - start;
                long cpu = THREADS.getCurrentThreadCpuTime() - cpuBefore;
                long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;
                long[] schedAfter = schedstat();
                long heap = usedHeapAfterGc();
                if (phase == 1) {
                    heapAfterFirstPhase = heap;
                }
                heapAfterLastPhase = heap;
                String wait = schedBefore == null || schedAfter == null ? "n/a"
                        : String.format(Locale.ROOT, "%.1f", (double) (schedAfter[1] - schedBefore[1]) / opsPerPhase);
                System.out.printf(Locale.ROOT, "%5d %12.1f %11.1f %22s %6.1f %19d%n", phase,
                        (double) wall / opsPerPhase, (double) cpu / opsPerPhase, wait,
                        (double) allocated / opsPerPhase, heap >> 10);
            }
        }
        System.out.println("rows changed: " + rowsChanged);
        if (heapAfterFirstPhase >= 0 && heapAfterLastPhase - heapAfterFirstPhase > HEAP_GROWTH_ALLOWED) {
            System.out.printf(Locale.ROOT, "heap after GC grew from %d KiB to %d KiB%n", heapAfterFirstPhase >> 10,
                    heapAfterLastPhase >> 10);
            System.exit(1);
        }
    }

    /** The thread's CPU time and run-queue wait, in ns, and its time slices; null where there is no such file. */
    private static long[] schedstat() {
        try {
            String[] fields = Files.readString(SCHEDSTAT).trim().split(" ");
            return new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1]), Long.parseLong(fields[2])};
        } catch (IOException | RuntimeException notLinux) {
            return null;
        }
    }

    private static long usedHeapAfterGc() {
        System.gc();
        return MEMORY.getHeapMemoryUsage().getUsed();
    }
}
