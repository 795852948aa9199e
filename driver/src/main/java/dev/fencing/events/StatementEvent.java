package dev.fencing.events;

/**
 * What a {@link FencingListener} hears of one statement: the fenced table it writes, and why it was
 * refused or rejected. Made only when a listener is registered.
 *
 * @param table     the fenced table the statement writes; null when it writes none, or when the
 *                  refusal names no table
 * @param refusal   why it was refused before anything was sent; null unless it was
 * @param rejection why the fence check rejected the write; null unless it did
 */
public record StatementEvent(String table, Refusal refusal, Rejection rejection) {

    /** A statement that writes no fenced table, sent unchanged. */
    public static final StatementEvent PASSED_THROUGH = new StatementEvent(null, null, null);

    /** A write to fenced {@code table}, sent with the fence check. */
    public static StatementEvent fenced(String table) {
        return new StatementEvent(table, null, null);
    }

    /** A statement refused before anything was sent. */
    public static StatementEvent refused(Refusal refusal, String table) {
        return new StatementEvent(table, refusal, null);
    }

    /** A write the fence check rejected. */
    public static StatementEvent rejected(Rejection rejection, String table) {
        return new StatementEvent(table, null, rejection);
    }
}
