package dev.fencing.lock.etcd;

import dev.fencing.lock.spi.Attempt;
import dev.fencing.lock.spi.LeaseEvents;
import dev.fencing.lock.spi.LockStore;
import dev.fencing.lock.spi.LockStoreException;
import dev.fencing.lock.spi.Tenure;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fenced locks as etcd keys: the lock on {@code r} is the key {@code <prefix>r}, created under
 * an etcd lease of its own by a transaction guarded by {@code create_revision == 0}; the fence is
 * the revision of that transaction. Release and renewal compare the key's create revision with
 * the fence, so only the tenure that created the key can delete it or keep it alive.
 */
final class EtcdLockStore implements LockStore {

    private static final System.Logger LOG = System.getLogger(EtcdLockStore.class.getName());

    private final Client client;
    private final String address;
    private final String keyPrefix;
    private final Map<String, Watch.Watcher> releaseWatches = new ConcurrentHashMap<>();
    private volatile LeaseEvents events;

    /** How long one keep-alive attempt waits for its answer before it is sent again. */
    private static final long KEEPALIVE_ATTEMPT_NANOS = TimeUnit.MILLISECONDS.toNanos(1_000);

    /** What a tenure keeps at the store: its etcd lease and the TTL etcd granted (seconds). */
    record Handle(long leaseId, long grantedTtlSeconds) {
    }

    EtcdLockStore(Client client, String address, String keyPrefix) {
        this.client = client;
        this.address = address;
        this.keyPrefix = keyPrefix;
    }

    @Override
    public void start(LeaseEvents events) {
        this.events = events;
    }

    /**
     * etcd leases count whole seconds: the TTL is rounded up, and etcd raises it further to its
     * minimum (1.5 election timeouts, rounded up to a second). Longer, never shorter: the
     * machinery's own count of the TTL then ends before etcd lets a successor in.
     */
    static long ttlSeconds(long ttlMillis) {
        return Math.max(1, (ttlMillis + 999) / 1000);
    }

    @Override
    public Attempt tryAcquire(String resource, String owner, long ttlMillis, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long asked = ttlSeconds(ttlMillis);
        LeaseGrantResponse grant = await(client.getLeaseClient().grant(asked), deadline, "grant a lease for '" + resource + "'");
        long leaseId = grant.getID();
        if (grant.getTTL() < asked) {
            revokeLater(leaseId);
            throw new LockStoreException(address + " granted a lease of " + grant.getTTL() + " s for '" + resource
                    + "' where " + asked + " s were asked; refusing a lock that could expire early", null);
        }
        ByteSequence key = key(resource);
        TxnResponse txn;
        try {
            txn = await(client.getKVClient().txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(Op.put(key, bytes(owner), PutOption.builder().withLeaseId(leaseId).build()))
                    .commit(), deadline, "take the lock on '" + resource + "'");
        } catch (LockStoreException e) {
            // If the transaction ran and only the reply was lost, revoking the lease deletes the
            // key: nobody is left holding a lock whose fence was never handed out.
            revokeLater(leaseId);
            throw e;
        }
        if (!txn.isSucceeded()) {
            revokeLater(leaseId);
            // The holder's remaining TTL would cost another round trip; the release watch wakes waiters.
            return Attempt.held(0);
        }
        // The transaction's revision is the key's create revision: unique and increasing across
        // the cluster, kept through leader changes (it is a Raft log entry applied by a quorum).
        return Attempt.acquired(txn.getHeader().getRevision(), new Handle(leaseId, grant.getTTL()));
    }

    /**
     * An etcd lease keeps the TTL it was granted: a keep-alive resets it to that, never to another.
     * So a lease extends to any TTL up to the granted one (the lock then lasts a little longer than
     * asked, which only delays a successor), and a longer TTL is refused.
     */
    @Override
    public void checkExtension(Tenure tenure, long ttlMillis) {
        long granted = handle(tenure).grantedTtlSeconds();
        if (ttlSeconds(ttlMillis) > granted) {
            throw new UnsupportedOperationException("etcd cannot extend " + tenure + " to " + ttlMillis + " ms: its etcd lease "
                    + "was granted " + granted + " s at the acquire and keeps that TTL; extend by at most " + granted
                    + " s, or acquire with the longer TTL");
        }
    }

    @Override
    public boolean extend(Tenure tenure, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Handle handle = handle(tenure);
        // Ownership first: a keepalive sent for a lease etcd no longer has can go unanswered until
        // the timeout (seen after a revoke), and the client's later keepalives then stall too
        if (!ownsKey(tenure, handle, deadline)) {
            return false;
        }
        LeaseKeepAliveResponse kept;
        try {
            kept = keepAliveOnce(handle.leaseId(), deadline, "renew " + tenure);
        } catch (LockStoreException e) {
            if (isLeaseNotFound(e)) {
                return false;
            }
            throw e;
        }
        if (kept.getTTL() <= 0) {
            return false; // the lease expired or was revoked: its key is gone with it
        }
        // The lease lives; is the key still the one this tenure created?
        return ownsKey(tenure, handle, deadline);
    }

    /**
     * One keep-alive of {@code leaseId}, sent again on a new stream when an attempt is not answered
     * within {@link #KEEPALIVE_ATTEMPT_NANOS}: jetcd opens a stream per keep-alive, and on a loaded
     * machine one such stream's request went unanswered until the whole timeout ran out while the
     * same request on a new stream was answered at once. A keep-alive only resets the lease to the
     * TTL it was granted, so sending it twice is harmless.
     */
    private LeaseKeepAliveResponse keepAliveOnce(long leaseId, long deadline, String what) {
        while (true) {
            long attemptDeadline = Math.min(deadline, System.nanoTime() + KEEPALIVE_ATTEMPT_NANOS);
            try {
                return await(client.getLeaseClient().keepAliveOnce(leaseId), attemptDeadline, what);
            } catch (LockStoreException e) {
                if (!(e.getCause() instanceof TimeoutException) || deadline - System.nanoTime() <= 0) {
                    throw e;
                }
                LOG.log(System.Logger.Level.DEBUG, () -> "a keep-alive of lease " + Long.toHexString(leaseId) + " at "
                        + address + " was not answered in time; sending it again on a new stream");
            }
        }
    }

    /** True when the resource's key is the one this tenure created, on its lease. */
    private boolean ownsKey(Tenure tenure, Handle handle, long deadline) {
        GetResponse read = await(client.getKVClient().get(key(tenure.resource())), deadline, "check " + tenure);
        return read.getKvs().stream().anyMatch(kv -> kv.getCreateRevision() == tenure.fence() && kv.getLease() == handle.leaseId());
    }

    @Override
    public boolean release(Tenure tenure, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Handle handle = handle(tenure);
        ByteSequence key = key(tenure.resource());
        TxnResponse txn;
        try {
            txn = await(client.getKVClient().txn()
                    .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(tenure.fence())))
                    .Then(Op.delete(key, DeleteOption.DEFAULT))
                    .commit(), deadline, "release " + tenure);
        } finally {
            // Whatever happened, the lease has nothing left to keep: revoking it deletes the key
            // if it is still this tenure's, and nothing else.
            revokeLater(handle.leaseId());
        }
        return txn.isSucceeded();
    }

    @Override
    public CompletionStage<?> watchReleases(String resource) {
        CompletableFuture<Void> listening = new CompletableFuture<>();
        WatchOption options = WatchOption.builder().withNoPut(true).withPrevKV(true).withCreateNotify(true).build();
        Watch.Watcher watcher = client.getWatchClient().watch(key(resource), options, Watch.listener(
                (WatchResponse response) -> {
                    if (response.isCreatedNotify()) {
                        listening.complete(null);
                    }
                    for (WatchEvent event : response.getEvents()) {
                        if (event.getEventType() == WatchEvent.EventType.DELETE) {
                            KeyValue previous = event.getPrevKV();
                            long fence = previous == null ? 0 : previous.getCreateRevision();
                            LeaseEvents sink = events;
                            if (sink != null) {
                                sink.released(resource, fence);
                            }
                        }
                    }
                },
                (Throwable error) -> {
                    // Waiters fall back to polling until the next waiter watches again.
                    listening.completeExceptionally(error);
                    LOG.log(System.Logger.Level.DEBUG, () -> "watch of '" + resource + "' at " + address
                            + " ended: " + error.getMessage());
                }));
        Watch.Watcher previous = releaseWatches.put(resource, watcher);
        if (previous != null) {
            previous.close();
        }
        return listening;
    }

    @Override
    public void unwatchReleases(String resource) {
        Watch.Watcher watcher = releaseWatches.remove(resource);
        if (watcher != null) {
            watcher.close();
        }
    }

    @Override
    public String address() {
        return "etcd at " + address;
    }

    @Override
    public void close() {
        releaseWatches.values().forEach(Watch.Watcher::close);
        releaseWatches.clear();
        client.close();
    }

    /** The key of {@code resource}'s lock (for tests and tools that inspect it). */
    ByteSequence key(String resource) {
        return bytes(keyPrefix + resource);
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    private Handle handle(Tenure tenure) {
        if (!(tenure.storeHandle() instanceof Handle handle)) {
            throw new IllegalStateException(tenure + " was not issued by etcd at " + address);
        }
        return handle;
    }

    private void revokeLater(long leaseId) {
        client.getLeaseClient().revoke(leaseId).whenComplete((ignored, error) -> {
            if (error != null) {
                // The lease expires by its TTL, taking any key it kept with it.
                LOG.log(System.Logger.Level.DEBUG, () -> "could not revoke lease " + Long.toHexString(leaseId) + " at "
                        + address + ": " + error.getMessage());
            }
        });
    }

    private static boolean isLeaseNotFound(LockStoreException e) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && message.contains("requested lease not found")) {
                return true;
            }
        }
        return false;
    }

    private <T> T await(CompletableFuture<T> future, long deadlineNanos, String what) {
        long left = deadlineNanos - System.nanoTime();
        try {
            return future.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new LockStoreException("could not " + what + " at " + address() + ": no answer within the timeout", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new LockStoreException("could not " + what + " at " + address() + ": " + describe(cause), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new LockStoreException("interrupted while trying to " + what + " at " + address(), e);
        }
    }

    private static String describe(Throwable error) {
        String message = error.getMessage();
        return message == null || message.isBlank() ? error.getClass().getSimpleName() : message;
    }
}
