package dev.fencing.proof.oracle;

import dev.fencing.proof.oracle.Setting.Database;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.jdbc.PreferQueryMode;

import javax.sql.DataSource;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.UUID;

/**
 * Opens the raw connections the oracle runs texts on, with several statements per execution:
 * PostgreSQL over the simple query protocol (as {@code Statement.execute} sends a text when
 * {@code preferQueryMode=simple}), MariaDB with {@code allowMultiQueries=true}, H2 in memory.
 */
final class Databases {

    private Databases() {
    }

    /** A server for {@code setting} in the scratch area of {@code scratch} (ignored for H2). */
    static Server server(Setting setting, DataSource scratch) throws SQLException {
        return new Server(setting, source(setting.database(), scratch));
    }

    static Server.ConnectionSource source(Database database, DataSource scratch) throws SQLException {
        return switch (database) {
            case POSTGRESQL -> {
                PGSimpleDataSource scoped = scratch.unwrap(PGSimpleDataSource.class);
                PGSimpleDataSource simple = new PGSimpleDataSource();
                simple.setURL(scoped.getURL());
                simple.setCurrentSchema(scoped.getCurrentSchema());
                simple.setPreferQueryMode(PreferQueryMode.SIMPLE);
                yield simple::getConnection;
            }
            case MARIADB -> {
                String url = scratch.unwrap(MariaDbDataSource.class).getUrl();
                MariaDbDataSource multi = new MariaDbDataSource(url + (url.contains("?") ? "&" : "?") + "allowMultiQueries=true");
                yield multi::getConnection;
            }
            case H2 -> {
                String url = "jdbc:h2:mem:oracle_" + UUID.randomUUID().toString().replace("-", "").toLowerCase(Locale.ROOT)
                        + ";DB_CLOSE_DELAY=-1";
                yield () -> DriverManager.getConnection(url);
            }
        };
    }
}
