package io.sluice.store.redis;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A script the store runs with {@code EVALSHA}: resource files of this package concatenated
 * once, at class initialisation, with the SHA-1 that Redis computes for it. A driver's script
 * ends with a call of its driver function (script-*.lua), which {@link LuaLibrary} registers as
 * a Redis Function too.
 */
final class LuaScript {

    /** The five algorithms and the driver that decides one request against all its limits. */
    static final LuaScript DECIDE = driver("decide", "common.lua", "fixed-window.lua", "sliding-log.lua",
            "sliding-window-counter.lua", "token-bucket.lua", "gcra.lua", "decide.lua", "script-decide.lua");

    /** The leasable algorithms (no sliding log) and the driver that takes a lease of a client's limits. */
    static final LuaScript LEASE = driver("lease", "common.lua", "fixed-window.lua", "sliding-window-counter.lua",
            "token-bucket.lua", "gcra.lua", "lease.lua", "script-lease.lua");

    /** What gives back the unused tokens of a lease (each algorithm's give-back is in it). */
    static final LuaScript GIVE_BACK = driver("give_back", "common.lua", "give-back.lua", "script-give-back.lua");

    /** One beat of a limiter instance: register or leave, drop the expired, count the live. */
    static final LuaScript HEARTBEAT = new LuaScript(LuaLibrary.read("common.lua", "heartbeat.lua"), null);

    private final String body;
    private final String sha1;
    private final byte[] encodedSha1;
    private final byte @Nullable [] encodedFunction;

    /** @param function the driver's name in {@link LuaLibrary}, or {@code null} when it is not in the library */
    private LuaScript(String body, @Nullable String function) {
        this.body = body;
        this.sha1 = LuaLibrary.sha1(body);
        this.encodedSha1 = sha1.getBytes(StandardCharsets.US_ASCII);
        this.encodedFunction = function == null ? null
                : LuaLibrary.SLUICE.functionName(function).getBytes(StandardCharsets.US_ASCII);
    }

    private static LuaScript driver(String function, String... resources) {
        return new LuaScript(LuaLibrary.read(resources), function);
    }

    /** The script text, sent with {@code SCRIPT LOAD} when a node answers {@code NOSCRIPT}. */
    String body() {
        return body;
    }

    /** The hex SHA-1 of the body, as {@code EVALSHA} takes it. */
    String sha1() {
        return sha1;
    }

    /** The hex SHA-1 in ASCII, as {@code EVALSHA}'s first argument; never to be modified. */
    byte[] encodedSha1() {
        return encodedSha1;
    }

    /**
     * The name of the same driver's function in {@link LuaLibrary#SLUICE} in ASCII, as
     * {@code FCALL}'s first argument; never to be modified.
     *
     * @throws IllegalStateException when the script is not in the library
     */
    byte[] encodedFunction() {
        if (encodedFunction == null) {
            throw new IllegalStateException("this script is not in the library of Redis Functions");
        }
        return encodedFunction;
    }
}
