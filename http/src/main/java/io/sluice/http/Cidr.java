package io.sluice.http;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Objects;

/** A block of IP addresses, {@code 10.0.0.0/8} or {@code 2001:db8::/32}; a bare address is a block of one. */
final class Cidr {

    private final byte[] network;
    private final int prefix;
    private final String text;

    private Cidr(byte[] network, int prefix, String text) {
        this.network = network;
        this.prefix = prefix;
        this.text = text;
    }

    /** @throws IllegalArgumentException naming the text when it is not an address or block */
    static Cidr parse(String text) {
        Objects.requireNonNull(text, "cidr");
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        InetAddress parsed = IpLiterals.parse(address).orElseThrow(() -> new IllegalArgumentException(
                "trusted proxy must be an IP address or a CIDR block such as 10.0.0.0/8: '" + text + "'"));
        int bits = parsed instanceof Inet4Address ? 32 : 128;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("CIDR prefix must be 0 to " + bits + ": '" + text + "'");
            }
        }
        return new Cidr(parsed.getAddress(), prefix, text);
    }

    boolean contains(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length != network.length) {
            return false;
        }
        int full = prefix / 8;
        for (int i = 0; i < full; i++) {
            if (bytes[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (bytes[full] & mask) == (network[full] & mask);
    }

    @Override
    public String toString() {
        return text;
    }
}
