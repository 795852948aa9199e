package dev.fencing.it;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Names that no other test, and no other run on the same servers, uses: for lock names, Redis
 * key prefixes and tables made beside a test's scratch area.
 */
public final class UniqueNames {

    private static final SecureRandom RANDOM = new SecureRandom();

    private UniqueNames() {
    }

    /** {@code prefix} and 12 random hex digits: a valid unquoted identifier when the prefix is one. */
    public static String next(String prefix) {
        byte[] bytes = new byte[6];
        RANDOM.nextBytes(bytes);
        return prefix + HexFormat.of().formatHex(bytes);
    }
}
