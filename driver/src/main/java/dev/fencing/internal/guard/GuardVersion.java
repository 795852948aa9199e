package dev.fencing.internal.guard;

/**
 * The guard's version. It is written into every trigger (a comment in its body or its remarks) so
 * that a reviewer sees which release installed it; {@code verify} goes further and compares the
 * installed text with the text this release would install, so any change of the DDL, the fence
 * column or the comparison counts as outdated.
 */
final class GuardVersion {

    /** Raise whenever the trigger logic changes. */
    static final int VERSION = 2;

    static final String MARKER = "fencing-guard v" + VERSION;

    private GuardVersion() {
    }
}
