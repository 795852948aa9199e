package dev.fencing.testing;

/**
 * Run in a JVM of its own by {@link RedisServersTest}: starts a paused redis-server, prints its
 * port, and then exits without closing anything ({@code exit}) or waits to be killed
 * ({@code hang}).
 */
public final class RedisOrphanProbe {

    private RedisOrphanProbe() {
    }

    @SuppressWarnings("resource") // left open on purpose: the reaper must clean up after us
    public static void main(String[] args) throws InterruptedException {
        RedisServer server = new RedisServers().start();
        server.pause();
        System.out.println("port " + server.port());
        System.out.flush();
        if (args.length > 0 && args[0].equals("exit")) {
            System.exit(0);
        }
        Thread.sleep(60_000);
        System.exit(1);
    }
}
