package dev.fencing.lock.zookeeper;

import dev.fencing.lock.spi.Attempt;
import dev.fencing.lock.spi.LeaseEvents;
import dev.fencing.lock.spi.LockStore;
import dev.fencing.lock.spi.LockStoreException;
import dev.fencing.lock.spi.Tenure;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Fenced locks as ephemeral sequential nodes: the lock on {@code r} is held by the lowest
 * child of {@code /fencing/locks/<r>}, and the fence is the zxid of that node's creation
 * ({@code czxid}). Children sort by their sequence number, which ZooKeeper assigns in creation
 * order, the same order as their zxids: the holder's fence is larger than every earlier
 * holder's. Unlike the sequence number, a zxid never repeats, also after the parent node is
 * deleted (parents are container nodes that ZooKeeper removes once empty) and recreated.
 *
 * <h2>Waiting without a herd</h2>
 * A process with threads waiting for a lock takes one place in its queue: a "ticket", an empty
 * ephemeral sequential node, and watches only the node just before it. When the ticket becomes
 * the lowest node, the process is told (one waiting thread tries again) and the next attempt
 * turns the ticket into the lock by writing its ownership token into it. Each release wakes one
 * process, not every waiter.
 *
 * <h2>TTLs and sessions</h2>
 * An ephemeral node lives as long as its session. The TTL of a lease is kept by this process:
 * a lease neither renewed nor released within its TTL has its node deleted by this process's
 * timer. A process that stops (a pause, a crash) stops its session's heartbeats as well, and
 * ZooKeeper deletes its nodes when the session expires. A TTL longer than the session timeout
 * is refused: the session could expire, and the lock pass on, while this process still counted
 * its lease as held.
 */
final class ZooKeeperLockStore implements LockStore {

    private static final System.Logger LOG = System.getLogger(ZooKeeperLockStore.class.getName());
    static final String BASE = "/fencing/locks";
    private static final String NODE = "n-";
    private static final byte[] TICKET = new byte[0];

    private final CuratorFramework client;
    private final String address;
    private final long configuredSessionMillis;
    private final ScheduledExecutorService timers = new ScheduledThreadPoolExecutor(1, daemon("fencing-zookeeper-expiry"));
    private final ExecutorService ticketWork = Executors.newSingleThreadExecutor(daemon("fencing-zookeeper-tickets"));
    private final Map<String, Held> held = new ConcurrentHashMap<>();
    private final Map<String, Ticket> tickets = new ConcurrentHashMap<>();
    private volatile LeaseEvents events;

    /** What a tenure keeps at the store: the path of its node. */
    record Handle(String path) {
    }

    /** A lease of this process, for its TTL timer and for session loss. */
    private static final class Held {
        final String resource;
        final String owner;
        final String path;
        final long fence;
        ScheduledFuture<?> expiry; // guarded by this

        Held(String resource, String owner, String path, long fence) {
            this.resource = resource;
            this.owner = owner;
            this.path = path;
            this.fence = fence;
        }
    }

    /** This process's place in the queue of one resource, while it has waiters. */
    private static final class Ticket {
        final String resource;
        final CompletableFuture<Void> listening = new CompletableFuture<>();
        String path;          // guarded by this; null until created
        boolean cancelled;    // guarded by this: no waiters left
        boolean consumed;     // guarded by this: turned into a lock

        Ticket(String resource) {
            this.resource = resource;
        }
    }

    ZooKeeperLockStore(CuratorFramework client, String address, long sessionTimeoutMillis) {
        this.client = client;
        this.address = address;
        this.configuredSessionMillis = sessionTimeoutMillis;
    }

    @Override
    public void start(LeaseEvents events) {
        this.events = events;
        client.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.LOST) {
                sessionLost();
            } else if (state == ConnectionState.RECONNECTED) {
                tickets.values().forEach(ticket -> ticketWork.execute(() -> watchPredecessor(ticket)));
            }
        });
        client.start();
    }

    @Override
    public Attempt tryAcquire(String resource, String owner, long ttlMillis, Duration timeout) {
        requireWithinSession(ttlMillis);
        String parent = parent(resource);
        Ticket ticket = tickets.get(resource);
        if (ticket != null) {
            synchronized (ticket) {
                if (ticket.path != null && !ticket.cancelled && !ticket.consumed) {
                    return acquireWithTicket(ticket, owner, ttlMillis);
                }
            }
        }
        try {
            Stat stat = new Stat();
            String path = client.create().storingStatIn(stat).creatingParentContainersIfNeeded().withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(parent + "/" + NODE, bytes(owner));
            if (isLowest(parent, path)) {
                return taken(resource, owner, path, stat.getCzxid(), ttlMillis);
            }
            client.delete().guaranteed().forPath(path);
            return Attempt.held(0);
        } catch (Exception e) {
            throw failure("take the lock on '" + resource + "'", e);
        }
    }

    /** Called holding the ticket's monitor. */
    private Attempt acquireWithTicket(Ticket ticket, String owner, long ttlMillis) {
        String parent = parent(ticket.resource);
        try {
            if (!isLowest(parent, ticket.path)) {
                return Attempt.held(0);
            }
            // Only this process writes its ticket, and only once: version 0 is the empty ticket.
            Stat stat = client.setData().withVersion(0).forPath(ticket.path, bytes(owner));
            ticket.consumed = true;
            if (tickets.remove(ticket.resource, ticket)) {
                // Other threads here may still wait: they keep a place in the queue.
                Ticket next = new Ticket(ticket.resource);
                tickets.put(ticket.resource, next);
                ticketWork.execute(() -> createTicket(next));
            }
            return taken(ticket.resource, owner, ticket.path, stat.getCzxid(), ttlMillis);
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException e) {
            return Attempt.held(0); // the session ended under it; the ticket is recreated on reconnect
        } catch (Exception e) {
            throw failure("take the lock on '" + ticket.resource + "'", e);
        }
    }

    private Attempt taken(String resource, String owner, String path, long czxid, long ttlMillis) {
        Held lease = new Held(resource, owner, path, czxid);
        held.put(owner, lease);
        scheduleExpiry(lease, ttlMillis);
        return Attempt.acquired(czxid, new Handle(path));
    }

    private void scheduleExpiry(Held lease, long ttlMillis) {
        synchronized (lease) {
            if (lease.expiry != null) {
                lease.expiry.cancel(false);
            }
            lease.expiry = timers.schedule(() -> expire(lease), ttlMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** The TTL passed without renewal or release: the lock ends here, as it would at a store that counts TTLs. */
    private void expire(Held lease) {
        if (!held.remove(lease.owner, lease)) {
            return;
        }
        LeaseEvents sink = events;
        if (sink != null) {
            sink.lost(lease.resource, lease.owner);
        }
        try {
            client.delete().guaranteed().forPath(lease.path);
        } catch (KeeperException.NoNodeException e) {
            // already gone with its session
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, () -> "could not delete the expired lock node " + lease.path + " at "
                    + address() + "; ZooKeeper deletes it when this client's session ends: " + e.getMessage());
        }
    }

    /** Any TTL the session can outlive: the TTL is this process's timer (see the class comment). */
    @Override
    public void checkExtension(Tenure tenure, long ttlMillis) {
        requireWithinSession(ttlMillis);
    }

    private void requireWithinSession(long ttlMillis) {
        long sessionMillis = sessionTimeoutMillis();
        if (ttlMillis > sessionMillis) {
            throw new IllegalArgumentException("a TTL of " + ttlMillis + " ms is longer than the ZooKeeper session timeout ("
                    + sessionMillis + " ms) of " + address() + ": the session could expire, and the lock pass on, while this "
                    + "process still counts the lease as held; use a shorter TTL (and the watchdog) or a longer "
                    + "sessionTimeout in the address");
        }
    }

    @Override
    public boolean extend(Tenure tenure, Duration timeout) {
        Held lease = held.get(tenure.owner());
        if (lease == null || lease.fence != tenure.fence()) {
            return false;
        }
        Stat stat;
        long session;
        try {
            stat = client.checkExists().forPath(lease.path);
            session = client.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            throw failure("renew " + tenure, e);
        }
        if (stat == null || stat.getCzxid() != tenure.fence() || stat.getEphemeralOwner() != session) {
            held.remove(tenure.owner(), lease);
            synchronized (lease) {
                if (lease.expiry != null) {
                    lease.expiry.cancel(false);
                }
            }
            return false;
        }
        scheduleExpiry(lease, tenure.ttlMillis());
        return true;
    }

    @Override
    public boolean release(Tenure tenure, Duration timeout) {
        Held lease = held.remove(tenure.owner());
        if (lease != null) {
            synchronized (lease) {
                if (lease.expiry != null) {
                    lease.expiry.cancel(false);
                }
            }
        }
        if (!(tenure.storeHandle() instanceof Handle handle)) {
            throw new IllegalStateException(tenure + " was not issued by " + address());
        }
        try {
            // The node's name carries a random prefix and a sequence number: no other tenure
            // ever has this path, so deleting it frees only this tenure's lock.
            client.delete().guaranteed().forPath(handle.path());
            return true;
        } catch (KeeperException.NoNodeException e) {
            return false;
        } catch (Exception e) {
            throw failure("release " + tenure, e);
        }
    }

    @Override
    public CompletionStage<?> watchReleases(String resource) {
        Ticket ticket = new Ticket(resource);
        Ticket previous = tickets.put(resource, ticket);
        if (previous != null) {
            cancel(previous);
        }
        ticketWork.execute(() -> createTicket(ticket));
        return ticket.listening;
    }

    @Override
    public void unwatchReleases(String resource) {
        Ticket ticket = tickets.remove(resource);
        if (ticket != null) {
            cancel(ticket);
        }
    }

    private void cancel(Ticket ticket) {
        String path;
        synchronized (ticket) {
            ticket.cancelled = true;
            path = ticket.consumed ? null : ticket.path;
        }
        ticket.listening.complete(null);
        if (path != null) {
            ticketWork.execute(() -> deleteQuietly(path));
        }
    }

    private void createTicket(Ticket ticket) {
        synchronized (ticket) {
            if (ticket.cancelled) {
                return;
            }
        }
        try {
            String path = client.create().creatingParentContainersIfNeeded().withProtection()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(parent(ticket.resource) + "/" + NODE, TICKET);
            synchronized (ticket) {
                if (ticket.cancelled) {
                    deleteQuietly(path);
                    return;
                }
                ticket.path = path;
            }
            watchPredecessor(ticket);
        } catch (Exception e) {
            // Waiters poll until the next waiter takes a place again.
            ticket.listening.completeExceptionally(e);
            tickets.remove(ticket.resource, ticket);
        }
    }

    /** Runs on the ticket thread: watch the node just before the ticket, or report that the ticket leads. */
    private void watchPredecessor(Ticket ticket) {
        String path;
        synchronized (ticket) {
            if (ticket.cancelled || ticket.consumed || ticket.path == null) {
                return;
            }
            path = ticket.path;
        }
        String parent = parent(ticket.resource);
        try {
            while (true) {
                List<String> children = sorted(client.getChildren().forPath(parent));
                int at = children.indexOf(name(path));
                if (at < 0) {
                    // The session that held the ticket ended: take a new place in the queue.
                    Ticket next = new Ticket(ticket.resource);
                    if (tickets.replace(ticket.resource, ticket, next)) {
                        next.listening.complete(null);
                        createTicket(next);
                    }
                    return;
                }
                if (at == 0) {
                    ticket.listening.complete(null);
                    LeaseEvents sink = events;
                    if (sink != null) {
                        sink.released(ticket.resource, 0);
                    }
                    return;
                }
                String predecessor = parent + "/" + children.get(at - 1);
                CuratorWatcher watcher = event -> ticketWork.execute(() -> watchPredecessor(ticket));
                if (client.checkExists().usingWatcher(watcher).forPath(predecessor) != null) {
                    ticket.listening.complete(null);
                    return;
                }
            }
        } catch (Exception e) {
            ticket.listening.completeExceptionally(e);
            LOG.log(System.Logger.Level.DEBUG, () -> "cannot watch the queue of '" + ticket.resource + "' at " + address()
                    + ": " + e.getMessage());
        }
    }

    private void sessionLost() {
        for (Held lease : held.values()) {
            if (held.remove(lease.owner, lease)) {
                synchronized (lease) {
                    if (lease.expiry != null) {
                        lease.expiry.cancel(false);
                    }
                }
                LeaseEvents sink = events;
                if (sink != null) {
                    sink.lost(lease.resource, lease.owner);
                }
            }
        }
    }

    private boolean isLowest(String parent, String path) throws Exception {
        List<String> children = sorted(client.getChildren().forPath(parent));
        return !children.isEmpty() && children.get(0).equals(name(path));
    }

    private static List<String> sorted(List<String> children) {
        return children.stream().filter(child -> child.length() > 10)
                .sorted(Comparator.comparing(child -> child.substring(child.length() - 10)))
                .toList();
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The parent node of a resource's lock nodes; the name is percent-encoded, so any resource name works. */
    static String parent(String resource) {
        String encoded = URLEncoder.encode(resource, StandardCharsets.UTF_8);
        if (encoded.equals(".") || encoded.equals("..")) {
            encoded = encoded.replace(".", "%2E");
        }
        return BASE + "/" + encoded;
    }

    private long sessionTimeoutMillis() {
        try {
            int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
            return negotiated > 0 ? negotiated : configuredSessionMillis;
        } catch (Exception e) {
            return configuredSessionMillis;
        }
    }

    private void deleteQuietly(String path) {
        try {
            client.delete().guaranteed().forPath(path);
        } catch (Exception e) {
            // gone already, or deleted in the background by Curator's guaranteed delete
        }
    }

    private LockStoreException failure(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        String detail = e instanceof KeeperException keeper ? keeper.code() + (keeper.getPath() != null ? " " + keeper.getPath() : "")
                : e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new LockStoreException("could not " + what + " at " + address() + ": " + detail, e);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String address() {
        return "ZooKeeper at " + address;
    }

    @Override
    public void close() {
        tickets.values().forEach(this::cancel);
        ticketWork.shutdown();
        timers.shutdownNow();
        try {
            ticketWork.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.close(); // ends the session: ZooKeeper deletes this client's nodes
    }

    private static ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
