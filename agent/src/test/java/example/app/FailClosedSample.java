package example.app;

import dev.fencing.Fenced;
import org.h2.jdbc.JdbcConnection;
import org.h2.jdbcx.JdbcDataSource;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Where the agent cannot fence, the application gets an exception, never an unfenced connection:
 * <ul>
 *   <li>a data source whose {@code getConnection()} is declared to return its own connection
 *       class, called through that class (through {@code DataSource} it is fenced);</li>
 *   <li>after an {@code @Fenced} entity that names no valid table is loaded, every connection.</li>
 * </ul>
 * Prints the connection class, or the exception's class and SQLState.
 */
public final class FailClosedSample {

    /** Declares the covariant {@code JdbcConnection getConnection()}. */
    public static final class OwnTypeDataSource implements DataSource {
        private final JdbcDataSource h2 = new JdbcDataSource();

        void setURL(String url) {
            h2.setURL(url);
        }

        @Override
        public JdbcConnection getConnection() throws SQLException {
            return (JdbcConnection) h2.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return h2.getConnection(user, password);
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }

    /** Not a valid table name. */
    @Fenced("no such; table")
    public static final class BadEntity {
    }

    public static void main(String[] args) throws Exception {
        OwnTypeDataSource dataSource = new OwnTypeDataSource();
        dataSource.setURL("jdbc:h2:mem:failclosed;DB_CLOSE_DELAY=-1");
        StringBuilder result = new StringBuilder("RESULT");
        result.append(" viaInterface=").append(attempt(() -> ((DataSource) dataSource).getConnection()));
        result.append(" viaOwnType=").append(attempt(dataSource::getConnection));
        Class.forName(FailClosedSample.class.getName() + "$BadEntity");
        result.append(" afterBadEntity=").append(attempt(() -> ((DataSource) dataSource).getConnection()));
        System.out.println(result);
    }

    interface Open {
        Connection open() throws SQLException;
    }

    private static String attempt(Open open) {
        try (Connection c = open.open()) {
            return c.getClass().getSimpleName();
        } catch (SQLException e) {
            System.out.println("REFUSED " + e);
            return e.getClass().getSimpleName() + "/" + e.getSQLState();
        }
    }
}
