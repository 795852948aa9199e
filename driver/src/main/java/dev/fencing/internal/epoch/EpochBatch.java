package dev.fencing.internal.epoch;

/**
 * What the epoch checks need to know of a batch about to be sent: its entries that write
 * epoch-mode tables, with the (lock, fence) pairs they were admitted under.
 */
public interface EpochBatch {

    /** How many entries write an epoch-mode table. */
    int epochWrites();

    /** The distinct locks of those entries, paired by index with {@link #epochFences()}. */
    String[] epochLocks();

    long[] epochFences();

    /** An epoch-mode table one of them writes, for messages. */
    String epochModeTable();

    /** True when an entry's text begins, ends or rolls back a transaction itself. */
    boolean controlsTransaction();
}
