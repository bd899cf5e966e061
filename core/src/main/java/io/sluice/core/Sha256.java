package io.sluice.core;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 with one digest per thread, for the API keys Sluice hashes on a request's path: the
 * store key here ({@code key:} and a prefix of the hash) and the form {@code sluice-http} shows
 * to operators. Public only for that second use, in another module; applications have no use
 * for it. Thread-safe.
 */
public final class Sha256 {

    // One digest per thread: looking one up costs more than hashing a key, on every request.
    private static final ThreadLocal<MessageDigest> DIGEST = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    });

    private Sha256() {
    }

    /** The 32 bytes of the SHA-256 of {@code bytes}. */
    public static byte[] of(byte[] bytes) {
        return DIGEST.get().digest(bytes);
    }
}
