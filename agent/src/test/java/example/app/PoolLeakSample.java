package example.app;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Fence;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One physical connection (a HikariCP pool of one, which the agent fences at every borrow) passed
 * from hold to hold, with the database guard required: what one hold set for the guard must not
 * reach the next. {@code pay_<table>(id)} writes the table where the driver cannot see it, so only
 * the guard, reading the session's fence, checks it. Then a write handed to another thread while
 * this one holds a lease's fence: refused, and the message names the holder.
 *
 * <p>System properties: {@code url}, {@code table}. Prints {@code RESULT <step> <count|exception>}
 * and {@code MESSAGE handoff <message>}.
 */
public final class PoolLeakSample {

    public static void main(String[] args) throws Exception {
        String table = System.getProperty("table");
        String pay = "SELECT pay_" + table + "(%d)";
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(System.getProperty("url"));
            pool.setMaximumPoolSize(1);
            // the new holder (fence 40) pays order 2; then the same physical connection, borrowed again:
            System.out.println("RESULT holder " + run(pool, 40, String.format(pay, 2)));
            // with no fence, the guard must find none (the holder's 40 would let it through)
            System.out.println("RESULT unfenced " + run(pool, 0, String.format(pay, 1)));
            // a stale holder (35) must meet the newer fence on order 2, not write with the holder's
            System.out.println("RESULT stale " + run(pool, 35, String.format(pay, 2)));
            System.out.println("RESULT unfenced-again " + run(pool, 0, String.format(pay, 1)));
            handOff(pool, table);
        }
    }

    /** Borrows the connection under {@code fence} (0: none), runs {@code sql} and gives it back. */
    private static String run(HikariDataSource pool, long fence, String sql) {
        try (Fence.Scope scope = fence > 0 ? Fence.enter(fence) : null; Connection c = pool.getConnection();
             Statement statement = c.createStatement()) {
            statement.executeQuery(sql).close();
            return "1";
        } catch (SQLException e) {
            return e.getClass().getSimpleName();
        }
    }

    /** A write on a worker thread while this thread holds lock {@code order:1}'s fence: refused, naming this thread. */
    private static void handOff(HikariDataSource pool, String table) throws InterruptedException {
        AtomicReference<String> outcome = new AtomicReference<>("none");
        try (Fence.Scope lease = Fence.enter("order:1", 41)) {
            Thread worker = new Thread(() -> {
                try (Connection c = pool.getConnection(); Statement statement = c.createStatement()) {
                    outcome.set(Integer.toString(statement.executeUpdate(
                            "UPDATE " + table + " SET status = 'handed-off' WHERE id = 1")));
                } catch (SQLException e) {
                    outcome.set(e.getClass().getSimpleName());
                    System.out.println("MESSAGE handoff " + e.getMessage());
                }
            }, "handed-off-worker");
            worker.start();
            worker.join(); // the lease's scope stays open until the worker is done
        }
        System.out.println("RESULT handoff " + outcome.get());
    }
}
