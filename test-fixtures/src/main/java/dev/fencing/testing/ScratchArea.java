package dev.fencing.testing;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A PostgreSQL schema or a MariaDB database of its own, on the server a {@link TestDatabase.Kind}
 * points at, for a test that needs its JDBC URL rather than a {@code DataSource} parameter: a
 * Spring test context ({@code registry.add("spring.datasource.url", area::url)}), or a process the
 * test starts. {@link TestDatabase} gives the same to one test class as a parameter. Closing it
 * drops the area and everything in it.
 *
 * <pre>{@code
 * static final ScratchArea AREA = ScratchArea.create(TestDatabase.Kind.POSTGRESQL);
 * }</pre>
 */
public final class ScratchArea implements AutoCloseable {

    /** Drops an area. */
    @FunctionalInterface
    interface Drop {
        void run() throws SQLException;
    }

    private final String name;
    private final String url;
    private final DataSource dataSource;
    private final Drop drop;
    private final AtomicBoolean dropped = new AtomicBoolean();

    ScratchArea(String name, String url, DataSource dataSource, Drop drop) {
        this.name = name;
        this.url = url;
        this.dataSource = dataSource;
        this.drop = drop;
    }

    /**
     * Creates an area named {@code fx_} and 12 random hex digits on {@code kind}'s server
     * ({@link TestDatabase.Kind#url()}: its environment variable, else the loopback default).
     *
     * @throws IllegalStateException when the server cannot be reached or refuses; the message
     *         names the environment variable that points elsewhere
     */
    public static ScratchArea create(TestDatabase.Kind kind) {
        Objects.requireNonNull(kind, "kind");
        try {
            return Scratch.create(kind);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The schema's or database's name. */
    public String name() {
        return name;
    }

    /** A JDBC URL whose connections use this area (unqualified names resolve into it). */
    public String url() {
        return url;
    }

    /** A plain data source on this area: no fencing, the test's view of what the database holds. */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Drops the area (once; later calls do nothing). A connection left open inside a transaction
     * makes the drop give up after 10 seconds rather than wait for ever.
     *
     * @throws IllegalStateException when the server refuses
     */
    @Override
    public void close() {
        if (dropped.compareAndSet(false, true)) {
            try {
                drop.run();
            } catch (SQLException e) {
                throw new IllegalStateException("cannot drop scratch area " + name + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public String toString() {
        return "ScratchArea[" + name + " at " + Env.redact(url) + "]";
    }
}
