package io.sluice.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/** Parses IP address literals without ever resolving a host name (header values are attacker input). */
final class IpLiterals {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
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
            if (IPV4.matcher(address).matches()) {
                String[] octets = address.split("\\.");
                byte[] bytes = new byte[4];
                for (int i = 0; i < 4; i++) {
                    int octet = Integer.parseInt(octets[i]);
                    if (octet > 255) {
                        return Optional.empty();
                    }
                    bytes[i] = (byte) octet;
                }
                return Optional.of(InetAddress.getByAddress(bytes));
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
}
