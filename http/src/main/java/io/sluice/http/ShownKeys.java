package io.sluice.http;

import io.sluice.core.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How known API keys are shown to operators ({@link HttpVerdict#client()}), kept for the keys
 * seen: every request of a client is recorded under its shown form (metrics' last-seen, the
 * top-denied sketch), and hashing its key for that on every request repeated the same SHA-256.
 * Only keys a tier knows come here (an invented key is shown by its address), so what is kept
 * is bounded by the clients a policy admits, and by {@link #CAPACITY} whatever they are: when
 * full it starts again empty (keys of an earlier policy go with it). Thread-safe.
 */
final class ShownKeys {

    /** The most keys kept. */
    static final int CAPACITY = 10_000;

    private final ConcurrentHashMap<String, String> shown = new ConcurrentHashMap<>();

    /**
     * {@code key:} with the first 4 characters of a key of 16 characters or more and 12 hex
     * digits of its SHA-256 (of its UTF-8 bytes), never the whole key.
     */
    String of(String apiKey) {
        String known = shown.get(apiKey);
        if (known != null) {
            return known;
        }
        String label = show(apiKey);
        if (shown.size() >= CAPACITY) {
            shown.clear();
        }
        shown.put(apiKey, label);
        return label;
    }

    /** How many keys are kept now. */
    int size() {
        return shown.size();
    }

    private static String show(String apiKey) {
        byte[] digest = Sha256.of(apiKey.getBytes(StandardCharsets.UTF_8));
        return "key:" + (apiKey.length() >= 16 ? apiKey.substring(0, 4) + "..." : "") + "#"
                + HexFormat.of().formatHex(digest, 0, 6);
    }
}
