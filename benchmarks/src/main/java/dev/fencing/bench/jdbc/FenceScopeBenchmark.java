package dev.fencing.bench.jdbc;

import dev.fencing.Fence;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/** Entering and closing a fence scope: once per lock tenure in an application. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@SuppressWarnings("try") // the scope is only entered and closed
public class FenceScopeBenchmark {

    private long token;

    @Benchmark
    public long enterClose() {
        try (Fence.Scope scope = Fence.enter(++token)) {
            return token;
        }
    }

    @Benchmark
    public long enterNamedClose() {
        try (Fence.Scope scope = Fence.enter("order:42", ++token)) {
            return token;
        }
    }
}
