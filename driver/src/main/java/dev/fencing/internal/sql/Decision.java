package dev.fencing.internal.sql;

/**
 * What one rule decides about (part of) a statement: a type, not a message where null means yes.
 * {@link TextAnalysis} folds the decisions of a text, in order, into its plan; the first
 * {@link Refuse} ends the text's analysis. A {@code table} of null leaves the table the plan
 * names as the decisions before it left it (the first configured table when none did).
 */
sealed interface Decision {

    /** Nothing fenced is written here: the statement (or write) goes on as written. */
    record Pass() implements Decision {
    }

    /** The statement names a fenced table (a read, until a write says more). */
    record Read() implements Decision {
    }

    /** A write of a row-mode fenced table that carries the check: splice it at {@code site}. */
    record Splice(WriteSite site, String table) implements Decision {
    }

    /** A write of an epoch-mode table: sent as written, the transaction checks the guard row first. */
    record EpochWrite(String table) implements Decision {
    }

    /** Let through as written because the database guard's triggers check what it writes. */
    record GuardChecked(String table) implements Decision {
    }

    /** Cannot carry the check: the text is refused, nothing is sent. */
    record Refuse(String table, String reason) implements Decision {
    }

    Pass PASS = new Pass();
    Read READ = new Read();

    /** A refusal that leaves the plan's table as it is. */
    static Refuse refuse(String reason) {
        return new Refuse(null, reason);
    }

    /** True for {@link Refuse}. */
    default boolean refuses() {
        return this instanceof Refuse;
    }
}
