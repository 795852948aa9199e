package dev.fencing.internal.jdbc;

import dev.fencing.FencingException;

import java.sql.SQLException;

/**
 * What every fenced wrapper does the same way: {@code unwrap} and {@code isWrapperFor} that never
 * reach the driver's own objects, the "is closed" error, and turning the application's values
 * back into the driver's objects before they are handed to the driver.
 */
public final class Wrappers {

    /** SQLState drivers use for a closed connection (class 08: the connection is really gone). */
    private static final String CONNECTION_CLOSED = "08003";
    /** SQLState of an operation on a closed statement, result set or metadata object. */
    private static final String OBJECT_CLOSED = "HY010";

    private Wrappers() {
    }

    /**
     * {@code wrapper} itself when it implements {@code iface}; otherwise a refusal. The driver's own
     * objects are never handed out: with a raw connection (or a PGConnection's CopyManager) the
     * application could write to a fenced table without the check.
     */
    public static <T> T unwrap(Object wrapper, Class<T> iface) throws SQLException {
        if (iface != null && iface.isInstance(wrapper)) {
            return iface.cast(wrapper);
        }
        throw new FencingException("fencing-jdbc does not unwrap " + wrapper.getClass().getSimpleName()
                + " to " + (iface == null ? "null" : iface.getName())
                + ": the driver's own objects are not handed out, because writes through them would"
                + " bypass the fence check");
    }

    /** True only when the wrapper itself implements {@code iface}: nothing underneath is reachable. */
    public static boolean isWrapperFor(Object wrapper, Class<?> iface) {
        return iface != null && iface.isInstance(wrapper);
    }

    static SQLException connectionClosed() {
        return new SQLException("this fenced connection is closed", CONNECTION_CLOSED);
    }

    static SQLException closed(String what) {
        return new SQLException("this " + what + " is closed", OBJECT_CLOSED);
    }

    /**
     * The driver's object behind a value the application got from us (a {@link FencedArray}, a
     * read-only {@link FencedBlob} or {@link FencedClob}), so that the driver receives its own kind
     * of object back; any other value unchanged. The cast is sound: each wrapper's driver object
     * implements every JDBC interface the wrapper does.
     */
    @SuppressWarnings("unchecked")
    static <T> T toDriver(T value) {
        if (value instanceof FencedArray array) {
            return (T) array.delegate();
        }
        if (value instanceof FencedBlob blob) {
            return (T) blob.delegate();
        }
        if (value instanceof FencedClob clob) {
            return (T) clob.delegate();
        }
        return value;
    }
}
