package dev.fencing.bench.jdbc;

import dev.fencing.Fence;
import dev.fencing.bench.stub.StubDataSource;
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

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * Issue 18: plain {@link Statement}s with literals in their text, over the no-I/O stub driver.
 * {@code distinctLiterals}: every operation sends a text no cache has seen (the id changes), as
 * string-built SQL does; fencing-jdbc plans it by its shape (one analysis for the whole run).
 * {@code repeatedText}: the same text every time (a text-cache hit). The string building is in
 * both the raw and the wrapped runs, so the difference is the wrapper's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LiteralStatementBenchmark {

    static final String HEAD = "UPDATE orders SET status = 'paid', amount = amount + 5 WHERE id = ";
    static final String REPEATED = HEAD + "1000042";

    @Param({"RAW", "FENCING", "DATASOURCE_PROXY"})
    public Wrappers wrapper;

    private Connection connection;
    private Statement statement;
    private Fence.Scope fence;
    private long id = 1_000_000;

    @Setup(Level.Trial)
    public void open() throws SQLException {
        DataSource dataSource = wrapper.wrap(new StubDataSource(), "orders");
        fence = Fence.enter(42);
        connection = dataSource.getConnection();
        statement = connection.createStatement();
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
        statement.close();
        connection.close();
        fence.close();
    }

    @Benchmark
    public int distinctLiterals() throws SQLException {
        return statement.executeUpdate(HEAD + ++id);
    }

    @Benchmark
    public int repeatedText() throws SQLException {
        return statement.executeUpdate(REPEATED);
    }
}
