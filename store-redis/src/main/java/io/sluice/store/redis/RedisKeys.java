package io.sluice.store.redis;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Key schema 2: {@code sluice{<client>}}, one key per client holding the states of all its
 * limits (value format 2, see docs/stores/redis.md), and for each sliding-log limit the list
 * of its entries, {@code sluice{<client>}:log:<limit name>}. The hash tag {@code {<client>}}
 * keeps a client's keys in one slot of a Redis Cluster. The key is 30 characters: on Redis 7
 * a key of up to 30 characters with a short value fits a smaller allocation than a longer one.
 *
 * <p>The client part is not the identity itself (an API key, an IP address, anything a
 * client sends): it is the first 128 bits of the SHA-256 of the identity's UTF-16 code units,
 * in unpadded base64url. So braces, newlines or a 16 K string cannot move a key to another
 * slot, make two clients share a key, or reach the script; and every key is short.
 * A next key schema takes another prefix, a next value format another first element. Schema 1
 * ({@code sluice:v1:{<client>}:<limit name>}, one key per limit) is still read, for a limit
 * whose state the client's key does not hold yet, so that a rolling upgrade admits no client
 * anew; it is never written.
 */
final class RedisKeys {

    static final String PREFIX = "sluice";

    /** The prefix of key schema 1, read during a rolling upgrade from it. */
    static final String VERSION1_PREFIX = "sluice:v1:";

    /**
     * The sorted set of the live limiter instances (docs/stores/redis.md, counting instances):
     * one hash tag, so one slot of a cluster; no client's key is ever spelt so, since a
     * client's hash tag is 22 characters of base64url.
     */
    static final String INSTANCES = PREFIX + "{instances}";

    private static final int HASH_BYTES = 16;
    /** Braces around the 22 characters of 16 bytes in unpadded base64. */
    private static final int TAG_LENGTH = 24;
    private static final byte[] BASE64URL =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".getBytes(StandardCharsets.ISO_8859_1);

    private static final byte[] PREFIX_BYTES = PREFIX.getBytes(StandardCharsets.ISO_8859_1);

    /** Per thread: the digest and room for an identity's UTF-16 code units and its hash. */
    private static final ThreadLocal<Hasher> HASHER = ThreadLocal.withInitial(Hasher::new);

    private RedisKeys() {
    }

    /** The key of the client with this identity, built as one string. */
    static String key(String identity) {
        Hasher hasher = HASHER.get();
        byte[] hash = hasher.hash(identity);
        // The prefix, then the unpadded base64url of the first 16 bytes between braces, written
        // into the thread's buffer (which holds the prefix): the string copies it anyway.
        byte[] key = hasher.key;
        int t = PREFIX_BYTES.length + 1;
        for (int i = 0; i < HASH_BYTES - 1; i += 3) {
            int bits = (hash[i] & 0xff) << 16 | (hash[i + 1] & 0xff) << 8 | (hash[i + 2] & 0xff);
            key[t++] = BASE64URL[bits >>> 18];
            key[t++] = BASE64URL[bits >>> 12 & 0x3f];
            key[t++] = BASE64URL[bits >>> 6 & 0x3f];
            key[t++] = BASE64URL[bits & 0x3f];
        }
        int last = hash[HASH_BYTES - 1] & 0xff;
        key[t++] = BASE64URL[last >>> 2];
        key[t++] = BASE64URL[(last & 0x03) << 4];
        key[t] = '}';
        return new String(key, StandardCharsets.ISO_8859_1);
    }

    /** The hash tag of a client, braces included. */
    static String hashTag(String identity) {
        return key(identity).substring(PREFIX.length());
    }

    /** The list of the entries of a sliding-log limit of the client with this key. */
    static String logKey(String clientKey, String limitName) {
        return clientKey + ":log:" + limitName;
    }

    /** The key of one limit of the client with this key, in schema 1. */
    static String version1Key(String clientKey, String limitName) {
        return VERSION1_PREFIX + clientKey.substring(PREFIX.length()) + ":" + limitName;
    }

    /** SHA-256 of an identity's UTF-16 code units into buffers of one thread, reused. */
    private static final class Hasher {

        private final MessageDigest sha256;
        private final byte[] hash = new byte[32];
        /** Room for identities of up to 256 characters; a longer one gets an array of its own. */
        private final byte[] units = new byte[512];
        /** A key's bytes, the prefix and the opening brace in place; {@link #key} writes the rest. */
        private final byte[] key = new byte[PREFIX_BYTES.length + TAG_LENGTH];

        Hasher() {
            System.arraycopy(PREFIX_BYTES, 0, key, 0, PREFIX_BYTES.length);
            key[PREFIX_BYTES.length] = '{';
            try {
                sha256 = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("the JDK has no SHA-256", e);
            }
        }

        /** The hash of the identity, in a buffer that the thread's next call overwrites. */
        byte[] hash(String identity) {
            int length = identity.length() * 2;
            byte[] units = length <= this.units.length ? this.units : new byte[length];
            // The UTF-16 code units, not a charset encoding: that would map every unpaired
            // surrogate to the same replacement byte, so two identities to one key.
            for (int i = 0; i < identity.length(); i++) {
                char c = identity.charAt(i);
                units[2 * i] = (byte) (c >>> 8);
                units[2 * i + 1] = (byte) c;
            }
            sha256.update(units, 0, length);
            try {
                sha256.digest(hash, 0, hash.length);
            } catch (DigestException e) {
                throw new IllegalStateException("SHA-256 did not fit 32 bytes", e);
            }
            return hash;
        }
    }
}
