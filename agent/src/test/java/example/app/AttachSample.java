package example.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;

/**
 * A running application the agent is attached to. It starts its HikariCP pool and uses the
 * {@code Fence} API (so its own copy of {@code Fence} is loaded) before the agent arrives, and
 * writes without a fence: nothing stops it yet. It then prints {@code READY <pid>} and waits for
 * a line on standard input; after that, the same three writes as {@link WritesSample}, through
 * the pool it already had.
 *
 * <p>Arguments: {@code <postgres-url> <table> <row-id>}.
 */
public final class AttachSample {

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String table = args[1];
        long id = Long.parseLong(args[2]);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            System.out.println("BEFORE fence=" + Fence.current() + " none="
                    + WritesSample.write(connection(pool), "UPDATE " + table + " SET status = ? WHERE id = ?", "before", id));
            System.out.println("READY " + ProcessHandle.current().pid());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line = in.readLine();
            if (!"go".equals(line)) {
                throw new IllegalStateException("expected go, got " + line);
            }
            System.out.println("FENCE loader=" + WritesSample.loaderName(Fence.class.getClassLoader()));
            System.out.println(WritesSample.run("attached-hikari", pool::getConnection, table, id));
        }
    }

    private static Connection connection(HikariDataSource pool) throws Exception {
        return pool.getConnection();
    }
}
