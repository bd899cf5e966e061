package io.sluice.store.redis;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * The key schema: {@code sluice:v2:{<client>}}, one key per client holding the states of all
 * its limits (format 2, see docs/stores/redis.md), and for each sliding-log limit the list of
 * its entries, {@code sluice:v2:{<client>}:log:<limit name>}. The hash tag {@code {<client>}}
 * keeps a client's keys in one slot of a Redis Cluster.
 *
 * <p>The client part is not the identity itself (an API key, an IP address, anything a
 * client sends): it is the first 128 bits of the SHA-256 of the identity's UTF-16 code units,
 * in unpadded base64url. So braces, newlines or a 16 K string cannot move a key to another
 * slot, make two clients share a key, or reach the script; and every key is short.
 * The {@code v2} changes when the key schema or the stored value's format changes. Schema 1
 * ({@code sluice:v1:{<client>}:<limit name>}, one key per limit) is still read, for a limit
 * whose state the client's key does not hold yet, so that a rolling upgrade admits no client
 * anew; it is never written.
 */
final class RedisKeys {

    static final String PREFIX = "sluice:v2:";

    /** The prefix of key schema 1, read during a rolling upgrade from it. */
    static final String VERSION1_PREFIX = "sluice:v1:";

    private static final int HASH_BYTES = 16;

    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    });

    private RedisKeys() {
    }

    /** The key of the client with this identity. */
    static String key(String identity) {
        return PREFIX + hashTag(identity);
    }

    /** The list of the entries of a sliding-log limit of the client with this hash tag. */
    static String logKey(String hashTag, String limitName) {
        return PREFIX + hashTag + ":log:" + limitName;
    }

    /** The key of one limit of the client with this hash tag in schema 1. */
    static String version1Key(String hashTag, String limitName) {
        return VERSION1_PREFIX + hashTag + ":" + limitName;
    }

    /** The hash tag of a client, braces included. */
    static String hashTag(String identity) {
        // The UTF-16 code units, not a charset encoding: that would map every unpaired
        // surrogate to the same replacement byte, so two identities to one key.
        byte[] units = new byte[identity.length() * 2];
        for (int i = 0; i < identity.length(); i++) {
            char c = identity.charAt(i);
            units[2 * i] = (byte) (c >>> 8);
            units[2 * i + 1] = (byte) c;
        }
        byte[] hash = Arrays.copyOf(SHA_256.get().digest(units), HASH_BYTES);
        return "{" + Base64.getUrlEncoder().withoutPadding().encodeToString(hash) + "}";
    }

}
