package io.sluice.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A script the store runs with {@code EVALSHA}: resource files of this package concatenated
 * once, at class initialisation, with the SHA-1 that Redis computes for it.
 */
final class LuaScript {

    /** The five algorithms and the driver that decides one request against all its limits. */
    static final LuaScript DECIDE = concatenate("common.lua", "fixed-window.lua", "sliding-log.lua",
            "sliding-window-counter.lua", "token-bucket.lua", "gcra.lua", "decide.lua");

    /** The leasable algorithms (no sliding log) and the driver that takes a lease of a client's limits. */
    static final LuaScript LEASE = concatenate("common.lua", "fixed-window.lua", "sliding-window-counter.lua",
            "token-bucket.lua", "gcra.lua", "lease.lua");

    /** What gives back the unused tokens of a lease (each algorithm's give-back is in it). */
    static final LuaScript GIVE_BACK = concatenate("common.lua", "give-back.lua");

    /** One beat of a limiter instance: register or leave, drop the expired, count the live. */
    static final LuaScript HEARTBEAT = concatenate("common.lua", "heartbeat.lua");

    private final String body;
    private final String sha1;
    private final byte[] encodedSha1;

    private LuaScript(String body) {
        this.body = body;
        this.sha1 = sha1(body);
        this.encodedSha1 = sha1.getBytes(StandardCharsets.US_ASCII);
    }

    /** The script text, sent with {@code EVAL} when a node answers {@code NOSCRIPT}. */
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

    private static LuaScript concatenate(String... resources) {
        StringBuilder body = new StringBuilder();
        for (String resource : resources) {
            try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing script resource " + resource);
                }
                body.append("-- ").append(resource).append('\n')
                        .append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read script resource " + resource, e);
            }
        }
        return new LuaScript(body.toString());
    }

    private static String sha1(String body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(body.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-1", e);
        }
    }
}
