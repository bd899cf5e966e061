package io.sluice.core;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Base64;

/**
 * The store keys that identify a client: a hash of its API key, or its IP address
 * grouped by prefix. Stateless.
 */
final class ClientKeys {

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();
    private static final byte[] IPV4_MAPPED_PREFIX = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff};

    private ClientKeys() {
    }

    /**
     * The store key of an API key: {@code key:} and the first 128 bits of its SHA-256,
     * so that the secret never reaches the store, every key has the same short length,
     * and no character of the key can interfere with a store's key syntax (such as a
     * Redis hash tag).
     */
    static String forApiKey(String apiKey) {
        // The UTF-16 code units, not a charset encoding, which would map every unpaired
        // surrogate to one replacement byte and so two keys to one store key.
        byte[] units = new byte[apiKey.length() * 2];
        for (int i = 0; i < apiKey.length(); i++) {
            char c = apiKey.charAt(i);
            units[2 * i] = (byte) (c >>> 8);
            units[2 * i + 1] = (byte) c;
        }
        byte[] digest = Sha256.of(units);
        return "key:" + BASE64.encodeToString(Arrays.copyOf(digest, 16));
    }

    /**
     * The store key of an address: {@code ip:} and the address with every bit past the
     * prefix cleared, followed by {@code /prefix} when the prefix is shorter than the address.
     * An IPv4-mapped IPv6 address counts as the IPv4 address it maps.
     */
    static String forAddress(InetAddress address, int ipv4Prefix, int ipv6Prefix) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 16 && Arrays.equals(bytes, 0, 12, IPV4_MAPPED_PREFIX, 0, 12)) {
            bytes = Arrays.copyOfRange(bytes, 12, 16);
        }
        int prefix = bytes.length == 4 ? ipv4Prefix : ipv6Prefix;
        for (int bit = prefix; bit < bytes.length * 8; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        String text;
        try {
            text = InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address of 4 or 16 bytes is always valid", e);
        }
        return prefix == bytes.length * 8 ? "ip:" + text : "ip:" + text + "/" + prefix;
    }
}
