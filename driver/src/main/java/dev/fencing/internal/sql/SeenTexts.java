package dev.fencing.internal.sql;

/**
 * Which texts an analyzer planned lately, by hash: one hash per slot, a newer text taking the slot
 * of an older one. It only decides which plans the text cache keeps (a text seen again is worth
 * its entry, a text with new literals is not), never what a plan is: a wrong answer costs a lookup
 * or an entry, so the slots are read and written without locks (an {@code int} is written whole).
 */
final class SeenTexts {

    private static final int SLOTS = 1024;

    private final int[] hashes = new int[SLOTS];

    /** True when {@code sql}'s hash is in its slot (seen lately); else it is put there. */
    boolean again(String sql) {
        int hash = sql.hashCode();
        int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
        if (hashes[slot] == hash) {
            return true;
        }
        hashes[slot] = hash;
        return false;
    }
}
