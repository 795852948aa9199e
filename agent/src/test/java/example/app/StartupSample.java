package example.app;

import dev.fencing.Fence;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

/**
 * For measuring what the agent costs. Prints {@code TIMES main=<ms> connect=<micros> write=<micros>}:
 * the JVM's uptime when {@code main} starts (an agent's {@code premain} runs before it), then the
 * time of the first connection ({@code DriverManager}) and of the first write to a fenced table.
 * Arguments: {@code <postgres-url> <table> <row-id>}.
 */
public final class StartupSample {

    public static void main(String[] args) throws Exception {
        long mainAt = ManagementFactory.getRuntimeMXBean().getUptime();
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
            System.out.println("TIMES main=" + mainAt + " connect=" + (connected - start) / 1000
                    + " write=" + (wrote - connected) / 1000);
        }
    }
}
