package example.app;

import dev.fencing.Fence;
import dev.fencing.Fenced;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * An application whose fenced tables come only from {@code @Fenced} entity classes (the agent's
 * configuration names none). Before an entity class is loaded its table is not fenced; once it
 * is, connections opened from then on fence it. H2 in memory; the tables are made by H2 itself
 * when the database opens.
 */
public final class EntitySample {

    /** Its table is the annotation's value. */
    @Fenced("entity_orders")
    public static final class Order {
    }

    /** Its table comes from JPA's {@code @Table}. */
    @Fenced
    @jakarta.persistence.Table(name = "entity_payments")
    public static final class Payment {
    }

    static final String URL = "jdbc:h2:mem:entities;DB_CLOSE_DELAY=-1;INIT="
            + "CREATE TABLE IF NOT EXISTS entity_orders (id BIGINT PRIMARY KEY, status VARCHAR(40), last_fence BIGINT)\\;"
            + "CREATE TABLE IF NOT EXISTS entity_payments (id BIGINT PRIMARY KEY, status VARCHAR(40), last_fence BIGINT)\\;"
            + "MERGE INTO entity_orders KEY (id) VALUES (1, 'seed', 0)\\;"
            + "MERGE INTO entity_payments KEY (id) VALUES (1, 'seed', 0)";

    public static void main(String[] args) throws Exception {
        StringBuilder result = new StringBuilder("RESULT");
        result.append(" ordersBefore=").append(write("entity_orders"));
        Class.forName(EntitySample.class.getName() + "$Order");
        result.append(" ordersAfter=").append(write("entity_orders"));
        result.append(" paymentsBefore=").append(write("entity_payments"));
        Class.forName(EntitySample.class.getName() + "$Payment");
        result.append(" paymentsAfter=").append(write("entity_payments"));
        try (Fence.Scope scope = Fence.enter(3)) {
            result.append(" paymentsFenced=").append(write("entity_payments"));
        }
        System.out.println(result);
    }

    /** A write without a fence, on a new connection. */
    private static String write(String table) throws SQLException {
        try (Connection c = java.sql.DriverManager.getConnection(URL)) {
            return WritesSample.write(c, "UPDATE " + table + " SET status = ? WHERE id = ?", "x", 1);
        }
    }
}
