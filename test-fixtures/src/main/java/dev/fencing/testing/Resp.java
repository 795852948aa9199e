package dev.fencing.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking Redis (RESP2) connection: enough to ping, configure, claim and flush a
 * server without requiring Lettuce, which users bring (or not) themselves.
 *
 * <p>Replies map to Java as: simple string and bulk string to {@link String} (a null bulk to
 * {@code null}), integer to {@link Long}, array to {@link List}; an error reply throws
 * {@link ErrorReply}.
 */
final class Resp implements AutoCloseable {

    /** The server answered a command with an error reply. */
    static final class ErrorReply extends IOException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private Resp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code host:port}; {@code timeout} bounds the connect and every reply. */
    static Resp connect(String host, int port, Duration timeout) throws IOException {
        Socket socket = new Socket();
        try {
            int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            socket.setTcpNoDelay(true);
            return new Resp(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Opens a connection, sends one command, and closes. */
    static Object once(String host, int port, Duration timeout, String... command) throws IOException {
        try (Resp resp = connect(host, port, timeout)) {
            return resp.call(command);
        }
    }

    /** Sends one command and reads its reply. */
    Object call(String... command) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        writeLine(buffer, "*" + command.length);
        for (String argument : command) {
            byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
            writeLine(buffer, "$" + bytes.length);
            buffer.write(bytes);
            writeLine(buffer, "");
        }
        out.write(buffer.toByteArray());
        out.flush();
        return read();
    }

    private static void writeLine(ByteArrayOutputStream buffer, String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        buffer.write(bytes, 0, bytes.length);
        buffer.write('\r');
        buffer.write('\n');
    }

    private Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("Redis closed the connection");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] bytes = in.readNBytes(length + 2);
                if (bytes.length != length + 2) {
                    throw new EOFException("Redis closed the connection inside a reply");
                }
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("not a RESP2 reply (type byte " + type + ")");
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                throw new EOFException("Redis closed the connection inside a reply");
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
