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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Goal 1 (and the allocation half of goal 5): what one statement costs in the JDBC layer alone.
 * The delegate is {@link StubDataSource}, a hand-written driver that does no I/O and reports one
 * row changed, so all that is measured is the wrapper: fencing-jdbc (plan cache hit, fence bound,
 * count checked) against the raw stub, p6spy and datasource-proxy, which rewrite nothing.
 *
 * <p>{@code execute}: the statement is prepared once per trial; each operation binds two values
 * and runs it. {@code prepareAndExecute}: each operation also prepares and closes the statement
 * (the cached plan is looked up by text at each prepare). {@code executeUnfenced}: a write to a
 * table that is not fenced (pre-filter, pass-through). The fence is entered once per trial, as a
 * lock holder would for a tenure's writes; {@link FenceScopeBenchmark} measures that scope's own cost.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
public class WrapperBenchmark {

    static final String FENCED_UPDATE = "UPDATE orders SET status = ? WHERE id = ?";
    static final String UNFENCED_UPDATE = "UPDATE customers SET name = ? WHERE id = ?";

    @Param({"RAW", "FENCING", "P6SPY", "DATASOURCE_PROXY"})
    public Wrappers wrapper;

    private Connection connection;
    private PreparedStatement update;
    private PreparedStatement unfencedUpdate;
    private Fence.Scope fence;
    private long id;

    @Setup(Level.Trial)
    public void open() throws SQLException {
        StubDataSource stub = new StubDataSource();
        DataSource dataSource = wrapper.wrap(stub, "orders");
        fence = Fence.enter(42);
        connection = dataSource.getConnection();
        update = connection.prepareStatement(FENCED_UPDATE);
        String sent = stub.lastConnection().lastPreparedSql();
        if ((wrapper == Wrappers.FENCING) != sent.contains("last_fence")) {
            throw new IllegalStateException(wrapper + " sent " + sent);
        }
        unfencedUpdate = connection.prepareStatement(UNFENCED_UPDATE);
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
        update.close();
        unfencedUpdate.close();
        connection.close();
        fence.close();
    }

    @Benchmark
    public int execute() throws SQLException {
        update.setString(1, "paid");
        update.setLong(2, ++id);
        return update.executeUpdate();
    }

    @Benchmark
    public int prepareAndExecute() throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(FENCED_UPDATE)) {
            statement.setString(1, "paid");
            statement.setLong(2, ++id);
            return statement.executeUpdate();
        }
    }

    @Benchmark
    public int executeUnfenced() throws SQLException {
        unfencedUpdate.setString(1, "Ada");
        unfencedUpdate.setLong(2, ++id);
        return unfencedUpdate.executeUpdate();
    }
}
