package dev.fencing.internal.lock;

/**
 * The Redis names of one resource's lock: the lock key, the fence counter key and the
 * release channel, for example {@code fencing:{order:42}:lock}, {@code fencing:{order:42}:fence}
 * and {@code fencing:{order:42}:released}.
 *
 * <p>The resource sits in a hash tag ({@code {...}}) so that the lock key and the counter
 * key hash to the same cluster slot: the acquire script touches both, and a script may only
 * touch keys of one slot. Braces (and {@code %}) in a resource name are percent-encoded, so
 * that a name cannot end the tag early, and two names never share keys.
 */
public final class RedisKeys {

    private static final String LOCK = "}:lock";
    private static final String FENCE = "}:fence";
    private static final String RELEASED = "}:released";

    private final String prefix;

    public RedisKeys(String prefix) {
        if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("keyPrefix must not contain '{' or '}' (the resource is the"
                    + " key's hash tag), got '" + prefix + "'");
        }
        this.prefix = prefix;
    }

    public String lock(String resource) {
        return prefix + "{" + encode(resource) + LOCK;
    }

    /** The counter that issues the resource's fences; it never expires. */
    public String fence(String resource) {
        return prefix + "{" + encode(resource) + FENCE;
    }

    public String releaseChannel(String resource) {
        return prefix + "{" + encode(resource) + RELEASED;
    }

    /** The resource whose release channel {@code channel} is, or null when it is not one of ours. */
    public String resourceOfReleaseChannel(String channel) {
        if (!channel.startsWith(prefix + "{") || !channel.endsWith(RELEASED)) {
            return null;
        }
        return decode(channel.substring(prefix.length() + 1, channel.length() - RELEASED.length()));
    }

    private static String encode(String resource) {
        if (resource.indexOf('{') < 0 && resource.indexOf('}') < 0 && resource.indexOf('%') < 0) {
            return resource;
        }
        return resource.replace("%", "%25").replace("{", "%7B").replace("}", "%7D");
    }

    private static String decode(String encoded) {
        if (encoded.indexOf('%') < 0) {
            return encoded;
        }
        return encoded.replace("%7B", "{").replace("%7D", "}").replace("%25", "%");
    }
}
