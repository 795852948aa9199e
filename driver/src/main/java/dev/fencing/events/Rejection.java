package dev.fencing.events;

/** Which check found a write's fence stale ({@code StaleFenceException}). */
public enum Rejection {
    /** The row's fence column holds a newer fence (row mode), found after the write was sent. */
    ROW_FENCE,
    /** The lock's epoch row holds a newer fence (epoch mode), found before the write was sent. */
    EPOCH_ROW
}
