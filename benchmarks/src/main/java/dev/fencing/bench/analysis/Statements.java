package dev.fencing.bench.analysis;

/**
 * Typical writes to the fenced table {@code orders}, each as a text that can be made unique
 * (a literal that changes) so that every operation of a "first-time" benchmark sees a text that
 * no cache has seen. {@link #text(long)} builds the same string for every parser compared.
 */
public enum Statements {
    UPDATE("UPDATE orders SET status = ?, paid_amount = ? WHERE id = ? AND tenant_id = ", ""),
    INSERT("INSERT INTO orders (id, customer_id, status, amount) VALUES (?, ?, 'new', ", ")"),
    UPSERT("INSERT INTO orders (id, status, amount) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            + "status = EXCLUDED.status, amount = EXCLUDED.amount + ", ""),
    DELETE("DELETE FROM orders WHERE status = 'cancelled' AND created_at < now() - interval '30 days' AND id > ", ""),
    UPDATE_FROM("UPDATE orders o SET status = 'shipped' FROM shipments s WHERE s.order_id = o.id "
            + "AND s.carrier = ? AND s.batch = ", " RETURNING o.id");

    private final String head;
    private final String tail;

    Statements(String head, String tail) {
        this.head = head;
        this.tail = tail;
    }

    /** The statement with {@code n} as its changing literal. */
    public String text(long n) {
        return head + n + tail;
    }
}
