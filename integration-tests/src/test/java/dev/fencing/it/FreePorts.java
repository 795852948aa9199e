package dev.fencing.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Loopback ports for servers a test starts itself, or for addresses where nothing must listen. */
public final class FreePorts {

    private FreePorts() {
    }

    /** A loopback port nothing listens on at the moment of asking. */
    public static int next() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
