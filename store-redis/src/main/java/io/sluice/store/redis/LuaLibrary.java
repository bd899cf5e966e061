package io.sluice.store.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The store's library of Redis Functions (Redis 7 and later): every algorithm and the drivers of
 * {@link LuaScript#DECIDE}, {@link LuaScript#LEASE} and {@link LuaScript#GIVE_BACK}, loaded once
 * with {@code FUNCTION LOAD REPLACE} and called with {@code FCALL}, so that Redis does not run
 * the definitions of every function on every call as it does for a script. The header and the
 * {@code redis.register_function} calls are resource files too (library-header.lua,
 * library-footer.lua).
 */
final class LuaLibrary {

    /** The placeholder of the header and the footer that the version replaces. */
    private static final String VERSION_PLACEHOLDER = "${version}";

    /** The one library of this build of the store. */
    static final LuaLibrary SLUICE = new LuaLibrary(read("library-header.lua", "common.lua", "fixed-window.lua",
            "sliding-log.lua", "sliding-window-counter.lua", "token-bucket.lua", "gcra.lua", "decide.lua",
            "lease.lua", "give-back.lua", "library-footer.lua"));

    private final String version;
    private final String code;

    private LuaLibrary(String template) {
        // Of the text before the version is put in: the version cannot be part of what it digests.
        this.version = sha1(template).substring(0, 16);
        this.code = template.replace(VERSION_PLACEHOLDER, version);
    }

    /** {@code sluice_} and the first 16 hex digits of the SHA-1 of the library's text. */
    String name() {
        return "sluice_" + version;
    }

    /** The library's code, as {@code FUNCTION LOAD} takes it. */
    String code() {
        return code;
    }

    /** The name of the Redis Function the footer registers for a driver ({@code decide}, {@code lease}, ...). */
    String functionName(String driver) {
        return name() + "_" + driver;
    }

    /** Resource files of this package, concatenated, each after a comment that names it. */
    static String read(String... resources) {
        StringBuilder text = new StringBuilder();
        for (String resource : resources) {
            try (InputStream in = LuaLibrary.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing script resource " + resource);
                }
                String content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                // The library's header must stay its first line: no comment before it.
                if (text.length() > 0) {
                    text.append("-- ").append(resource).append('\n');
                }
                text.append(content).append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read script resource " + resource, e);
            }
        }
        return text.toString();
    }

    /** The hex SHA-1 of a text, as Redis computes a script's. */
    static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-1", e);
        }
    }
}
