package dev.fencing.internal.jdbc;

import dev.fencing.UnfenceableStatementException;

import java.io.InputStream;
import java.io.OutputStream;
import java.sql.Blob;
import java.sql.SQLException;

/**
 * A {@code Blob} read through a fenced connection: readable, never writable. On PostgreSQL a Blob
 * read from a result set is the large object itself, and a write through it changes what the row
 * refers to in the database directly: no statement, so no fence check, and no trigger (large
 * objects live outside tables, where the database guard cannot see them). Other drivers hand out a
 * copy, or refuse; the same rule for all of them keeps a write path from depending on the driver.
 * A new value is written with a fenced UPDATE (bytes, a stream, or {@code connection.createBlob()}
 * where the driver has it; pgjdbc makes a new large object from a stream).
 */
final class FencedBlob implements Blob {

    private final Blob delegate;

    private FencedBlob(Blob delegate) {
        this.delegate = delegate;
    }

    /** {@code blob} made read-only; null stays null. */
    static Blob wrap(Blob blob) {
        return blob == null || blob instanceof FencedBlob ? blob : new FencedBlob(blob);
    }

    Blob delegate() {
        return delegate;
    }

    @Override
    public long length() throws SQLException {
        return delegate.length();
    }

    @Override
    public byte[] getBytes(long pos, int length) throws SQLException {
        return delegate.getBytes(pos, length);
    }

    @Override
    public InputStream getBinaryStream() throws SQLException {
        return delegate.getBinaryStream();
    }

    @Override
    public InputStream getBinaryStream(long pos, long length) throws SQLException {
        return delegate.getBinaryStream(pos, length);
    }

    @Override
    public long position(byte[] pattern, long start) throws SQLException {
        return delegate.position(pattern, start);
    }

    @Override
    public long position(Blob pattern, long start) throws SQLException {
        return delegate.position(Wrappers.toDriver(pattern), start);
    }

    @Override
    public int setBytes(long pos, byte[] bytes) throws SQLException {
        throw refused("Blob", "setBytes");
    }

    @Override
    public int setBytes(long pos, byte[] bytes, int offset, int len) throws SQLException {
        throw refused("Blob", "setBytes");
    }

    @Override
    public OutputStream setBinaryStream(long pos) throws SQLException {
        throw refused("Blob", "setBinaryStream");
    }

    @Override
    public void truncate(long len) throws SQLException {
        throw refused("Blob", "truncate");
    }

    @Override
    public void free() throws SQLException {
        delegate.free();
    }

    @Override
    public String toString() {
        return "FencedBlob[" + delegate + "]";
    }

    /** The refusal of a write through a LOB read through a fenced connection. */
    static UnfenceableStatementException refused(String type, String method) {
        return new UnfenceableStatementException(null, type + "." + method + " is refused: a " + type
                + " read through a fenced connection may be the value in the database itself (a PostgreSQL"
                + " large object), and a write through it would change that value without the fence check;"
                + " nothing was written. Write the new value with a fenced UPDATE instead (bytes, a stream, or"
                + " a new " + type + " from connection.create" + type + "() where the driver has it).");
    }
}
