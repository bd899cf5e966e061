package io.sluice.core;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What a policy needs to know about one request: the caller's API key (if any), its IP
 * address, the HTTP method and the path. Immutable.
 *
 * <pre>{@code
 * ApiRequest request = ApiRequest.of(request.getHeader("X-Api-Key"), request.getRemoteAddr(),
 *         request.getMethod(), request.getRequestURI());
 * }</pre>
 */
public final class ApiRequest {

    private static final Pattern IPV4_LITERAL = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6_LITERAL = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private final @Nullable String apiKey;
    private final InetAddress clientIp;
    private final String method;
    private final String path;

    private ApiRequest(@Nullable String apiKey, InetAddress clientIp, String method, String path) {
        this.apiKey = apiKey;
        this.clientIp = clientIp;
        this.method = method;
        this.path = path;
    }

    /**
     * A request.
     *
     * @param apiKey the caller's API key; {@code null} or empty for an anonymous caller
     * @param clientIp the caller's address
     * @param method the HTTP method, any case
     * @param path the request path, possibly with a query string (it is ignored)
     */
    public static ApiRequest of(@Nullable String apiKey, InetAddress clientIp, String method, String path) {
        Objects.requireNonNull(clientIp, "clientIp");
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        if (method.isEmpty()) {
            throw new IllegalArgumentException("method must not be empty");
        }
        return new ApiRequest(apiKey == null || apiKey.isEmpty() ? null : apiKey, clientIp,
                method.toUpperCase(Locale.ROOT), path);
    }

    /**
     * A request whose client address is an IPv4 or IPv6 literal (as servlet containers
     * report it); host names are refused, never looked up.
     *
     * @throws IllegalArgumentException naming the address when it is not an IP literal
     */
    public static ApiRequest of(@Nullable String apiKey, String clientIp, String method, String path) {
        return of(apiKey, parseIpLiteral(clientIp), method, path);
    }

    private static InetAddress parseIpLiteral(String literal) {
        Objects.requireNonNull(literal, "clientIp");
        String address = literal.startsWith("[") && literal.endsWith("]")
                ? literal.substring(1, literal.length() - 1) : literal;
        int zone = address.indexOf('%');
        String withoutZone = zone >= 0 ? address.substring(0, zone) : address;
        try {
            if (IPV4_LITERAL.matcher(withoutZone).matches()) {
                String[] octets = withoutZone.split("\\.");
                byte[] bytes = new byte[4];
                for (int i = 0; i < 4; i++) {
                    int octet = Integer.parseInt(octets[i]);
                    if (octet > 255) {
                        throw new IllegalArgumentException("client IP must be an IPv4 or IPv6 literal: '"
                                + literal + "'");
                    }
                    bytes[i] = (byte) octet;
                }
                return InetAddress.getByAddress(bytes);
            }
            if (IPV6_LITERAL.matcher(withoutZone).matches()) {
                // A string with ':' is parsed as an IPv6 literal by getByName, never resolved.
                return InetAddress.getByName(withoutZone);
            }
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("client IP must be an IPv4 or IPv6 literal: '" + literal + "'", e);
        }
        throw new IllegalArgumentException("client IP must be an IPv4 or IPv6 literal: '" + literal + "'");
    }

    /** The API key, empty for an anonymous caller. */
    public Optional<String> apiKey() {
        return Optional.ofNullable(apiKey);
    }

    /** The caller's address. */
    public InetAddress clientIp() {
        return clientIp;
    }

    /** The HTTP method, upper case. */
    public String method() {
        return method;
    }

    /** The path as given. */
    public String path() {
        return path;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ApiRequest)) {
            return false;
        }
        ApiRequest other = (ApiRequest) o;
        return Objects.equals(apiKey, other.apiKey) && clientIp.equals(other.clientIp)
                && method.equals(other.method) && path.equals(other.path);
    }

    @Override
    public int hashCode() {
        return Objects.hash(apiKey, clientIp, method, path);
    }

    /** Never shows the API key, which is a secret. */
    @Override
    public String toString() {
        return "ApiRequest[" + (apiKey == null ? "anonymous" : "with API key") + ", "
                + clientIp.getHostAddress() + ", " + method + " " + path + "]";
    }
}
