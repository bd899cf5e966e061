package io.sluice.http;

import io.sluice.core.PolicyDecision;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to do with one HTTP request: forward it (adding {@link #headers()} to the response), or
 * answer it at once with {@link #status()}, the headers and a problem {@link #body()}. Immutable.
 */
public final class HttpVerdict {

    /** The media type of every {@link #body()}. */
    public static final String PROBLEM_JSON = "application/problem+json";

    /** What happened to the request, for metrics and the top-denied list. */
    public enum Outcome {
        /** Within its limits: forwarded. */
        ALLOWED,
        /** A shadow limit (or a shadow limiter) would have denied it: forwarded. */
        SHADOW_DENIED,
        /** Over a limit: 429. */
        DENIED,
        /** The store could not decide and the policy fails closed: 503. */
        UNAVAILABLE,
        /** No API key where one is needed, or a key that no tier knows: 401. */
        UNAUTHORIZED
    }

    /** A response header field. */
    public record Header(String name, String value) {
        public Header {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }
    }

    private final Outcome outcome;
    private final int status;
    private final List<Header> headers;
    private final @Nullable String body;
    private final PolicyDecision decision;
    private final @Nullable String apiKey;
    private final InetAddress clientAddress;
    private final ShownKeys shownKeys;

    HttpVerdict(Outcome outcome, int status, List<Header> headers, @Nullable String body, PolicyDecision decision,
                @Nullable String apiKey, InetAddress clientAddress, ShownKeys shownKeys) {
        this.outcome = outcome;
        this.status = status;
        this.headers = List.copyOf(headers);
        this.body = body;
        this.decision = decision;
        this.apiKey = apiKey;
        this.clientAddress = clientAddress;
        this.shownKeys = shownKeys;
    }

    /** Whether the request goes on to the application (allowed, or only shadow-denied). */
    public boolean forward() {
        return outcome == Outcome.ALLOWED || outcome == Outcome.SHADOW_DENIED;
    }

    /** What happened. */
    public Outcome outcome() {
        return outcome;
    }

    /** The status to answer when not forwarded (429, 503 or 401); 200 when forwarded. */
    public int status() {
        return status;
    }

    /** The header fields to add to the response, forwarded or not. */
    public List<Header> headers() {
        return headers;
    }

    /** The {@value #PROBLEM_JSON} body (RFC 9457) when not forwarded, else {@code null}. */
    public @Nullable String body() {
        return body;
    }

    /** The policy's decision behind this verdict. */
    public PolicyDecision decision() {
        return decision;
    }

    /**
     * Who the caller is, safe to show an operator: {@code key:} with the first 4 characters of
     * a key known to a tier (16 characters or longer) and 12 hex digits of its SHA-256, never
     * the whole key; else {@code ip:} and the client's address (unknown keys are not shown:
     * anyone can invent them).
     */
    public String client() {
        boolean knownKey = apiKey != null && decision.tier().isPresent() && !decision.unknownKey();
        if (!knownKey) {
            return "ip:" + clientAddress.getHostAddress();
        }
        return shownKeys.of(Objects.requireNonNull(apiKey));
    }

    /** Never shows the API key. */
    @Override
    public String toString() {
        return "HttpVerdict[" + outcome + ", " + status + ", " + headers + "]";
    }
}
