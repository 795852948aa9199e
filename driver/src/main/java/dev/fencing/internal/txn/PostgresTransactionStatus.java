package dev.fencing.internal.txn;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Whether pgjdbc reports the open transaction as failed (a statement in it raised an error, so the
 * server will end it with a rollback whatever ends it). pgjdbc keeps the server's own transaction
 * status from each ReadyForQuery message; its {@code BaseConnection.getTransactionState()} is read
 * reflectively so the driver needs no compile-time dependency on pgjdbc.
 */
public final class PostgresTransactionStatus {

    private static final String BASE_CONNECTION = "org.postgresql.core.BaseConnection";

    private PostgresTransactionStatus() {
    }

    /** True or false as pgjdbc reports it; null when it cannot be asked (not pgjdbc, or not reachable). */
    public static Boolean failed(Connection database) {
        String state = state(database);
        return state == null ? null : state.equals("FAILED");
    }

    /**
     * Whether a transaction block is open (failed ones included), as pgjdbc read it from the server's
     * last ReadyForQuery: no round trip. Null when it cannot be asked.
     */
    public static Boolean open(Connection database) {
        String state = state(database);
        return state == null ? null : !state.equals("IDLE");
    }

    /** pgjdbc's transaction state (IDLE, OPEN, FAILED), or null when it cannot be asked. */
    private static String state(Connection database) {
        try {
            ClassLoader loader = database.getClass().getClassLoader();
            Reader reader = reader(loader == null ? ClassLoader.getSystemClassLoader() : loader);
            if (reader == null || !database.isWrapperFor(reader.base())) {
                return null;
            }
            return String.valueOf(reader.getTransactionState().invoke(database.unwrap(reader.base())));
        } catch (Error e) {
            if (e instanceof LinkageError) {
                return null;
            }
            throw e;
        } catch (Throwable cannotAsk) {
            // not pgjdbc, an older pgjdbc, or a wrapper that will not unwrap: the caller falls back
            return null;
        }
    }

    /** pgjdbc's connection interface and its state getter, as found through one class loader. */
    private record Reader(ClassLoader loader, Class<?> base, MethodHandle getTransactionState) {
    }

    /** The last reader found: one pgjdbc per application is the common case, so one is kept. */
    private static volatile Reader last;

    private static Reader reader(ClassLoader loader) {
        Reader known = last;
        if (known != null && known.loader() == loader) {
            return known;
        }
        try {
            Class<?> base = Class.forName(BASE_CONNECTION, false, loader);
            MethodHandle state = MethodHandles.publicLookup().findVirtual(base, "getTransactionState",
                    MethodType.methodType(Class.forName("org.postgresql.core.TransactionState", false, base.getClassLoader())));
            Reader found = new Reader(loader, base, state);
            last = found;
            return found;
        } catch (ReflectiveOperationException | LinkageError | RuntimeException notPgjdbc) {
            return null;
        }
    }
}
