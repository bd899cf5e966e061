package io.sluice.http;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Who is calling: the API key from a configured header (or query parameter), and the client's
 * IP address. Immutable.
 *
 * <p>The address is the connection's peer, unless the peer is one of the configured trusted
 * proxies: then it is read from {@code Forwarded} (RFC 7239) or, without one,
 * {@code X-Forwarded-For}, right to left, skipping trusted proxies; the first address that is
 * not a trusted proxy is the client. A peer that is not trusted cannot move itself to another
 * address's bucket with such a header: the header is ignored. An entry that is not an IP
 * literal ({@code unknown}, an obfuscated name) ends the walk at the proxy that wrote it.
 *
 * <pre>{@code
 * ClientIdentity identity = ClientIdentity.custom()
 *         .apiKeyHeader("X-Api-Key")
 *         .trustedProxies(List.of("10.0.0.0/8", "2001:db8::/32"))
 *         .build();
 * }</pre>
 */
public final class ClientIdentity {

    /** The header that carries the API key unless configured otherwise. */
    public static final String DEFAULT_API_KEY_HEADER = "X-Api-Key";

    private final @Nullable String apiKeyHeader;
    private final @Nullable String apiKeyQueryParameter;
    private final List<Cidr> trustedProxies;

    private ClientIdentity(Builder builder) {
        this.apiKeyHeader = builder.apiKeyHeader;
        this.apiKeyQueryParameter = builder.apiKeyQueryParameter;
        this.trustedProxies = List.copyOf(builder.trustedProxies);
    }

    /** API keys from {@value #DEFAULT_API_KEY_HEADER}, the address from the socket, no trusted proxy. */
    public static ClientIdentity ofDefaults() {
        return custom().build();
    }

    /** A builder, starting from the defaults. */
    public static Builder custom() {
        return new Builder();
    }

    /** The header that carries API keys, if any. */
    public Optional<String> apiKeyHeader() {
        return Optional.ofNullable(apiKeyHeader);
    }

    /** The API key of the request, empty when it carries none. */
    public Optional<String> apiKey(HttpRequestView request) {
        if (apiKeyHeader != null) {
            List<String> values = request.headers(apiKeyHeader);
            if (!values.isEmpty() && !values.get(0).isEmpty()) {
                return Optional.of(values.get(0));
            }
        }
        if (apiKeyQueryParameter != null) {
            String value = request.queryParameter(apiKeyQueryParameter);
            if (value != null && !value.isEmpty()) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }

    /**
     * The client's address.
     *
     * @throws IllegalArgumentException naming the peer address when it is not an IP literal
     */
    public InetAddress clientAddress(HttpRequestView request) {
        String peerLiteral = request.peerAddress();
        InetAddress peer = IpLiterals.parse(peerLiteral).orElseThrow(() -> new IllegalArgumentException(
                "the peer address must be an IP literal: '" + peerLiteral + "'"));
        if (!trusted(peer)) {
            return peer;
        }
        List<String> forwarded = request.headers("Forwarded");
        List<String> chain = forwarded.isEmpty() ? forwardedFor(request.headers("X-Forwarded-For"))
                : forwardedElements(forwarded);
        InetAddress client = peer;
        for (int i = chain.size() - 1; i >= 0; i--) {
            Optional<InetAddress> hop = IpLiterals.parse(withoutPort(chain.get(i)));
            if (hop.isEmpty()) {
                // Not an address: nothing to its left can be trusted; the proxy that wrote it is the client we know.
                return client;
            }
            client = hop.get();
            if (!trusted(client)) {
                return client;
            }
        }
        return client;
    }

    private boolean trusted(InetAddress address) {
        for (Cidr proxy : trustedProxies) {
            if (proxy.contains(address)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> forwardedFor(List<String> lines) {
        List<String> chain = new ArrayList<>();
        for (String line : lines) {
            for (String entry : line.split(",")) {
                chain.add(entry.trim());
            }
        }
        return chain;
    }

    /** The {@code for=} node of every element of every {@code Forwarded} line; an element without one is unknown. */
    private static List<String> forwardedElements(List<String> lines) {
        List<String> chain = new ArrayList<>();
        for (String line : lines) {
            for (String element : line.split(",")) {
                String node = "unknown";
                for (String pair : element.split(";")) {
                    int equals = pair.indexOf('=');
                    if (equals > 0 && pair.substring(0, equals).trim().toLowerCase(Locale.ROOT).equals("for")) {
                        node = unquote(pair.substring(equals + 1).trim());
                    }
                }
                chain.add(node);
            }
        }
        return chain;
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1) : value;
    }

    /** {@code [2001:db8::1]:4711} to {@code 2001:db8::1}, {@code 192.0.2.1:8080} to {@code 192.0.2.1}. */
    private static String withoutPort(String node) {
        if (node.startsWith("[")) {
            int close = node.indexOf(']');
            return close > 0 ? node.substring(1, close) : node;
        }
        int colon = node.indexOf(':');
        return colon > 0 && colon == node.lastIndexOf(':') ? node.substring(0, colon) : node;
    }

    @Override
    public String toString() {
        return "ClientIdentity[api key from " + (apiKeyHeader == null ? "" : "header " + apiKeyHeader)
                + (apiKeyQueryParameter == null ? "" : " query parameter " + apiKeyQueryParameter)
                + ", trusted proxies " + trustedProxies + "]";
    }

    /** Builds a {@link ClientIdentity}. Not thread-safe. */
    public static final class Builder {

        private @Nullable String apiKeyHeader = DEFAULT_API_KEY_HEADER;
        private @Nullable String apiKeyQueryParameter;
        private List<Cidr> trustedProxies = List.of();

        private Builder() {
        }

        /** The header that carries the API key; {@code null} for none. Default {@value #DEFAULT_API_KEY_HEADER}. */
        public Builder apiKeyHeader(@Nullable String header) {
            this.apiKeyHeader = header == null ? null : requireToken(header, "API key header");
            return this;
        }

        /**
         * The query parameter that carries the API key when the header is absent; {@code null}
         * (the default) for none. Keys in URLs end up in access logs: prefer the header.
         */
        public Builder apiKeyQueryParameter(@Nullable String parameter) {
            this.apiKeyQueryParameter = parameter == null ? null : requireToken(parameter, "API key query parameter");
            return this;
        }

        /**
         * The proxies (addresses or CIDR blocks) whose {@code Forwarded} and
         * {@code X-Forwarded-For} headers are believed. Default none.
         *
         * @throws IllegalArgumentException naming an entry that is not an address or block
         */
        public Builder trustedProxies(List<String> cidrs) {
            List<Cidr> parsed = new ArrayList<>();
            for (String cidr : Objects.requireNonNull(cidrs, "trustedProxies")) {
                parsed.add(Cidr.parse(cidr));
            }
            this.trustedProxies = parsed;
            return this;
        }

        /** Builds the identity. */
        public ClientIdentity build() {
            return new ClientIdentity(this);
        }

        private static String requireToken(String name, String what) {
            if (name.isBlank() || !name.chars().allMatch(c -> c > 32 && c < 127)) {
                throw new IllegalArgumentException(what + " must be a non-empty name of visible ASCII characters: '"
                        + name + "'");
            }
            return name;
        }
    }
}
