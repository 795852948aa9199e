package example.app;

import dev.fencing.Fence;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

/**
 * For measuring what the agent costs: with no arguments it only starts and exits; with
 * {@code <postgres-url> <table> <row-id>} it also times its first connection and its first write to the
 * (fenced) table, and prints {@code TIMES connect=<micros> write=<micros>}.
 */
public final class StartupSample {

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.out.println("STARTED");
            return;
        }
        long start = System.nanoTime();
        try (Connection c = DriverManager.getConnection(args[0])) {
            long connected = System.nanoTime();
            try (Fence.Scope scope = Fence.enter(1);
                 PreparedStatement update = c.prepareStatement("UPDATE " + args[1] + " SET status = ? WHERE id = ?")) {
                update.setString(1, "timed");
                update.setLong(2, Long.parseLong(args[2]));
                update.executeUpdate();
            }
            long wrote = System.nanoTime();
            System.out.println("TIMES connect=" + (connected - start) / 1000 + " write=" + (wrote - connected) / 1000);
        }
    }
}
