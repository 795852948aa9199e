package dev.fencing.internal.jdbc;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.SQLException;

/**
 * A {@code Clob} read through a fenced connection: readable, never writable, for the reason
 * {@link FencedBlob} gives (on PostgreSQL it is the large object itself).
 */
class FencedClob implements Clob {

    private final Clob delegate;
    private final String type;

    FencedClob(Clob delegate, String type) {
        this.delegate = delegate;
        this.type = type;
    }

    /** {@code clob} made read-only, an {@code NClob} staying one; null stays null. */
    static Clob wrap(Clob clob) {
        if (clob == null || clob instanceof FencedClob) {
            return clob;
        }
        return clob instanceof NClob nclob ? new FencedNClob(nclob) : new FencedClob(clob, "Clob");
    }

    /** {@code nclob} made read-only; null stays null. */
    static NClob wrap(NClob nclob) {
        return nclob == null || nclob instanceof FencedNClob ? nclob : new FencedNClob(nclob);
    }

    Clob delegate() {
        return delegate;
    }

    @Override
    public long length() throws SQLException {
        return delegate.length();
    }

    @Override
    public String getSubString(long pos, int length) throws SQLException {
        return delegate.getSubString(pos, length);
    }

    @Override
    public Reader getCharacterStream() throws SQLException {
        return delegate.getCharacterStream();
    }

    @Override
    public Reader getCharacterStream(long pos, long length) throws SQLException {
        return delegate.getCharacterStream(pos, length);
    }

    @Override
    public InputStream getAsciiStream() throws SQLException {
        return delegate.getAsciiStream();
    }

    @Override
    public long position(String pattern, long start) throws SQLException {
        return delegate.position(pattern, start);
    }

    @Override
    public long position(Clob pattern, long start) throws SQLException {
        return delegate.position(Wrappers.toDriver(pattern), start);
    }

    @Override
    public int setString(long pos, String str) throws SQLException {
        throw FencedBlob.refused(type, "setString");
    }

    @Override
    public int setString(long pos, String str, int offset, int len) throws SQLException {
        throw FencedBlob.refused(type, "setString");
    }

    @Override
    public OutputStream setAsciiStream(long pos) throws SQLException {
        throw FencedBlob.refused(type, "setAsciiStream");
    }

    @Override
    public Writer setCharacterStream(long pos) throws SQLException {
        throw FencedBlob.refused(type, "setCharacterStream");
    }

    @Override
    public void truncate(long len) throws SQLException {
        throw FencedBlob.refused(type, "truncate");
    }

    @Override
    public void free() throws SQLException {
        delegate.free();
    }

    @Override
    public String toString() {
        return "Fenced" + type + "[" + delegate + "]";
    }

    /** An {@code NClob} read through a fenced connection. */
    static final class FencedNClob extends FencedClob implements NClob {
        FencedNClob(NClob delegate) {
            super(delegate, "NClob");
        }
    }
}
