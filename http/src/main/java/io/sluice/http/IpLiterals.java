package io.sluice.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Parses IP address literals without ever resolving a host name (header values are attacker input). */
final class IpLiterals {

    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private IpLiterals() {
    }

    /**
     * The address of an IPv4 literal, or an IPv6 literal with or without brackets and zone;
     * empty for anything else, host names included.
     */
    static Optional<InetAddress> parse(String literal) {
        String address = literal.trim();
        if (address.startsWith("[") && address.endsWith("]")) {
            address = address.substring(1, address.length() - 1);
        }
        int zone = address.indexOf('%');
        if (zone >= 0) {
            address = address.substring(0, zone);
        }
        try {
            byte[] ipv4 = ipv4(address);
            if (ipv4 != null) {
                return Optional.of(InetAddress.getByAddress(ipv4));
            }
            if (IPV6.matcher(address).matches()) {
                // A string with ':' is parsed as an IPv6 literal by getByName, never looked up.
                return Optional.of(InetAddress.getByName(address));
            }
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * The four bytes of a dotted quad (four groups of one to three ASCII digits, each at most
     * 255), else {@code null}. Parsed by hand: every request's peer address comes here, and a
     * regular expression and a split cost a matcher and five strings per request.
     */
    private static byte @Nullable [] ipv4(String address) {
        byte[] bytes = new byte[4];
        int octet = 0;
        int digits = 0;
        int dots = 0;
        for (int i = 0; i < address.length(); i++) {
            char c = address.charAt(i);
            if (c >= '0' && c <= '9' && digits < 3) {
                octet = octet * 10 + (c - '0');
                digits++;
            } else if (c == '.' && digits > 0 && dots < 3 && octet <= 255) {
                bytes[dots++] = (byte) octet;
                octet = 0;
                digits = 0;
            } else {
                return null;
            }
        }
        if (dots != 3 || digits == 0 || octet > 255) {
            return null;
        }
        bytes[3] = (byte) octet;
        return bytes;
    }
}
