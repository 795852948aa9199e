package dev.fencing.internal.epoch;

import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The epoch claims known to be durable in one database: for each lock, the newest fence whose
 * claim was committed through this process. Once a claim is committed the epoch row never goes
 * below it, so a connection that finds its (lock, fence) here need not claim again, and one that
 * finds a newer fence knows its tenure is over without asking the database.
 *
 * <p>Shared by the connections of one {@code ConnectionContext} that report the same database URL
 * (the sharing rule is stated there); only claims known to be committed are recorded. Bounded:
 * past {@link #MAX_LOCKS} locks some are forgotten, which only costs their next claim a statement.
 * Thread-safe.
 */
public final class EpochClaims {

    public static final int MAX_LOCKS = 4096;

    private final ConcurrentHashMap<String, Long> claimed = new ConcurrentHashMap<>();

    /** The newest committed claim of {@code lock}, or 0 when none is known. */
    public long claimed(String lock) {
        Long fence = claimed.get(lock);
        return fence == null ? 0 : fence;
    }

    /** Records that the epoch row of {@code lock} was committed at {@code fence} (or above). */
    public void committed(String lock, long fence) {
        claimed.merge(lock, fence, Math::max);
        if (claimed.size() > MAX_LOCKS) {
            Iterator<String> locks = claimed.keySet().iterator();
            for (int i = 0; i < MAX_LOCKS / 4 && locks.hasNext(); i++) {
                locks.next();
                locks.remove();
            }
        }
    }
}
