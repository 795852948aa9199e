package dev.fencing.internal.lock;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * One of the lock's Lua scripts, read from a resource file beside this class. It runs by
 * {@code EVALSHA}; a server that does not know it yet (first use, restart, {@code SCRIPT
 * FLUSH}, a new cluster node) answers {@code NOSCRIPT}, and the script is sent once with
 * {@code SCRIPT LOAD} and run again. Scripts are fixed text, never generated.
 */
public final class LuaScript {

    /** Takes the lock and issues its fence: returns the fence, or minus the holder's TTL. */
    public static final LuaScript ACQUIRE = fromResource("acquire.lua");
    /** Compare-and-delete, then publishes the release: returns 1 or 0. */
    public static final LuaScript RELEASE = fromResource("release.lua");
    /** Compare-and-pexpire: returns 1 or 0. */
    public static final LuaScript EXTEND = fromResource("extend.lua");

    private final String name;
    private final String source;
    private final String sha1;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1Hex(source);
    }

    static LuaScript fromResource(String name) {
        try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + name + " is missing beside " + LuaScript.class.getName());
            }
            return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + name, e);
        }
    }

    /** The lock's scripts, loaded ahead of their first use. */
    public static final List<LuaScript> ALL = List.of(ACQUIRE, RELEASE, EXTEND);

    /**
     * Sends every script with {@code SCRIPT LOAD} (in a cluster, to every master), all three
     * before waiting for the first answer, so that each script's first run is one
     * {@code EVALSHA} instead of three round trips ({@code NOSCRIPT}, {@code SCRIPT LOAD},
     * {@code EVALSHA}).
     *
     * @throws TimeoutException when Redis did not answer within {@code timeout}
     * @throws RedisException when Redis failed a load
     * @throws IllegalStateException if Redis names a script by another SHA-1 than this process
     *         computed (the text reached it changed): the script would never run
     */
    static void loadAll(RedisClusterAsyncCommands<String, String> commands, Duration timeout) throws TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<RedisFuture<String>> loads = new ArrayList<>(ALL.size());
        for (LuaScript script : ALL) {
            loads.add(commands.scriptLoad(script.source));
        }
        for (int i = 0; i < loads.size(); i++) {
            LuaScript script = ALL.get(i);
            String loaded = script.await(loads.get(i), deadline);
            if (!script.sha1.equals(loaded)) {
                throw new IllegalStateException("Redis loaded Lua script " + script.name + " as " + loaded + ", expected "
                        + script.sha1);
            }
        }
    }

    /**
     * Runs the script, waiting at most {@code timeout} for its result (which must be an
     * integer). When the time runs out, the command is cancelled if it was not sent yet; if it
     * was, its outcome is unknown, and the caller must treat it so.
     *
     * @throws TimeoutException when no result came within {@code timeout}
     * @throws RedisException when Redis failed the command
     */
    public long run(RedisClusterAsyncCommands<String, String> commands, Duration timeout, String[] keys, String... args)
            throws TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            return await(commands.evalsha(sha1, ScriptOutputType.INTEGER, keys, args), deadline);
        } catch (RedisNoScriptException e) {
            await(commands.scriptLoad(source), deadline);
            return await(commands.evalsha(sha1, ScriptOutputType.INTEGER, keys, args), deadline);
        }
    }

    private <T> T await(RedisFuture<T> future, long deadline) throws TimeoutException {
        T result = RedisConnections.await(future, deadline);
        if (result == null) {
            throw new IllegalStateException("Lua script " + name + " returned no result");
        }
        return result;
    }

    public String name() {
        return name;
    }

    public String sha1() {
        return sha1;
    }

    private static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(40);
            for (byte b : digest) {
                hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every Java runtime", e);
        }
    }
}
