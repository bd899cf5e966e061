package io.sluice.http;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.core.ApiRequest;
import io.sluice.core.PolicyDecision;
import io.sluice.core.PolicyLimiter;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * Applies a {@link PolicyLimiter} to HTTP requests: finds who calls ({@link ClientIdentity}),
 * decides, and says what the client sees ({@link HttpVerdict}):
 *
 * <ul>
 *   <li>within the limits: forwarded, with the rate-limit header fields;</li>
 *   <li>over a limit: 429 with {@code Retry-After} in whole seconds (rounded up) and an
 *       {@code application/problem+json} body (RFC 9457) naming the limit that denied;</li>
 *   <li>the store cannot decide and the policy fails closed: 503 with a problem of its own
 *       type, never 429 (the client did nothing wrong);</li>
 *   <li>no API key where the policy has no anonymous limits, or a key no tier knows (and the
 *       policy rejects unknown keys): 401.</li>
 * </ul>
 *
 * <pre>{@code
 * HttpRateLimiter http = HttpRateLimiter.custom(policyLimiter)
 *         .identity(ClientIdentity.custom().trustedProxies(List.of("10.0.0.0/8")).build())
 *         .headers(EnumSet.of(HeaderFamily.IETF, HeaderFamily.X_RATE_LIMIT))
 *         .build();
 * }</pre>
 *
 * <p>Thread-safe. The problem types are documented in docs/http.md, whose anchors they name.
 */
public final class HttpRateLimiter {

    private static final String PROBLEM_TYPES = "https://github.com/sluice-rl/sluice/blob/main/docs/http.md#";
    /** The problem type of a 429. */
    public static final String RATE_LIMITED = PROBLEM_TYPES + "rate-limited";
    /** The problem type of a 503: the store could not decide and the policy fails closed. */
    public static final String STORE_UNAVAILABLE = PROBLEM_TYPES + "store-unavailable";
    /** The problem type of a 401 for a key that no tier knows. */
    public static final String UNKNOWN_API_KEY = PROBLEM_TYPES + "unknown-api-key";
    /** The problem type of a 401 for a request without a key where the policy needs one. */
    public static final String API_KEY_REQUIRED = PROBLEM_TYPES + "api-key-required";

    private static final long MICROS_PER_SECOND = 1_000_000;
    /** The members every problem of a kind starts with (type, title, status), written once. */
    private static final String RATE_LIMITED_START = problemStart(RATE_LIMITED, "Too Many Requests", 429);
    private static final String STORE_UNAVAILABLE_START = problemStart(STORE_UNAVAILABLE,
            "Rate limit store unavailable", 503);
    private static final String UNKNOWN_API_KEY_START = problemStart(UNKNOWN_API_KEY, "Unknown API key", 401);
    private static final String API_KEY_REQUIRED_START = problemStart(API_KEY_REQUIRED, "API key required", 401);
    /** How many lists of limits keep their formatted {@code RateLimit-Policy}: a policy's plans, not its clients. */
    static final int POLICY_FIELDS = 64;

    /** A list of limits (one plan's, by identity) and its {@code RateLimit-Policy} value. */
    private record PolicyField(List<Limit> limits, String value) {
    }

    private final PolicyLimiter limiter;
    private final ClientIdentity identity;
    private final Set<HeaderFamily> families;
    private final String authenticateChallenge;
    /**
     * The {@code RateLimit-Policy} values formatted so far, found by the identity of the list:
     * a plan's list of limits is the same object for every request of the plan (the policy
     * caches its plans), and its field never changes, so formatting it per request was
     * wasted. Replaced whole when one is added (copy on write); once full, further lists (the
     * plans of a reloaded policy) are formatted per request.
     */
    private volatile PolicyField[] policyFields = new PolicyField[0];
    private final ShownKeys shownKeys = new ShownKeys();

    private HttpRateLimiter(Builder builder) {
        this.limiter = builder.limiter;
        this.identity = builder.identity;
        this.families = Set.copyOf(builder.families);
        this.authenticateChallenge = "ApiKey realm=\"" + builder.realm + "\"";
    }

    /** A builder on a policy limiter, with the default identity and the {@link HeaderFamily#IETF} fields. */
    public static Builder custom(PolicyLimiter limiter) {
        return new Builder(Objects.requireNonNull(limiter, "limiter"));
    }

    /**
     * Decides a request, waiting for the store on the calling thread ({@link PolicyLimiter#decide}).
     *
     * @throws IllegalArgumentException when the peer address is not an IP literal
     */
    public HttpVerdict decide(HttpRequestView request) {
        Caller caller = caller(request);
        return verdict(limiter.decide(caller.request()), caller.apiKey(), caller.address());
    }

    /**
     * Decides a request without blocking. The stage never completes exceptionally on a store
     * failure (that is a 503 or an admission, by the failure policy).
     *
     * @throws IllegalArgumentException when the peer address is not an IP literal
     */
    public CompletionStage<HttpVerdict> decideAsync(HttpRequestView request) {
        Caller caller = caller(request);
        return limiter.decideAsync(caller.request())
                .thenApply(decision -> verdict(decision, caller.apiKey(), caller.address()));
    }

    /** Who calls ({@link ClientIdentity}), and the request to decide. */
    private record Caller(@Nullable String apiKey, InetAddress address, ApiRequest request) {
    }

    private Caller caller(HttpRequestView request) {
        String apiKey = identity.apiKey(request).orElse(null);
        InetAddress address = identity.clientAddress(request);
        return new Caller(apiKey, address, ApiRequest.of(apiKey, address, request.method(), request.path()));
    }

    private HttpVerdict verdict(PolicyDecision policyDecision, @Nullable String apiKey, InetAddress client) {
        List<HttpVerdict.Header> headers = new ArrayList<>(8);
        Optional<Decision> limits = policyDecision.decision();
        limits.ifPresent(decision -> addRateLimitHeaders(headers, policyDecision.limits(), decision));
        if (policyDecision.allowed()) {
            HttpVerdict.Outcome outcome = policyDecision.shadowDenied()
                    ? HttpVerdict.Outcome.SHADOW_DENIED : HttpVerdict.Outcome.ALLOWED;
            return new HttpVerdict(outcome, 200, headers, null, policyDecision, apiKey, client, shownKeys);
        }
        headers.add(new HttpVerdict.Header("Cache-Control", "no-store"));
        if (limits.isEmpty()) {
            headers.add(new HttpVerdict.Header("WWW-Authenticate", authenticateChallenge));
            String body = policyDecision.unknownKey()
                    ? problem(UNKNOWN_API_KEY_START, "no tier knows this API key", null, null)
                    : problem(API_KEY_REQUIRED_START,
                            "this API needs an API key; calls without one are not admitted", null, null);
            return new HttpVerdict(HttpVerdict.Outcome.UNAUTHORIZED, 401, headers, body, policyDecision, apiKey,
                    client, shownKeys);
        }
        Decision decision = limits.get();
        if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE) {
            String body = problem(STORE_UNAVAILABLE_START,
                    "the rate limits cannot be checked now and this API does not admit unchecked calls; "
                            + "this is not a rate limit of yours", policyDecision, null);
            return new HttpVerdict(HttpVerdict.Outcome.UNAVAILABLE, 503, headers, body, policyDecision, apiKey,
                    client, shownKeys);
        }
        Optional<Duration> retryAfter = decision.retryAfter();
        Long retrySeconds = retryAfter.map(wait -> Math.max(1, ceilSeconds(wait.toNanos() / 1_000))).orElse(null);
        if (retrySeconds != null) {
            headers.add(new HttpVerdict.Header("Retry-After", Long.toString(retrySeconds)));
        }
        Limit binding = decision.binding();
        String detail = decision.reason() == Decision.Reason.COST_EXCEEDS_CAPACITY
                ? "this request costs " + policyDecision.cost() + " tokens, more than limit '" + binding.name()
                        + "' ever holds (" + binding.burst() + "): it can never be admitted"
                : "limit '" + binding.name() + "' (" + binding.permits() + " per " + period(binding) + ") is used up"
                        + (retrySeconds == null ? "" : "; retry after " + retrySeconds + " s");
        String body = problem(RATE_LIMITED_START, detail, policyDecision, retrySeconds);
        return new HttpVerdict(HttpVerdict.Outcome.DENIED, 429, headers, body, policyDecision, apiKey, client,
                shownKeys);
    }

    private void addRateLimitHeaders(List<HttpVerdict.Header> headers, List<Limit> all, Decision decision) {
        boolean known = decision.reason() != Decision.Reason.STORE_UNAVAILABLE;
        long resetSeconds = ceilSeconds(decision.resetAfter().toNanos() / 1_000);
        if (families.contains(HeaderFamily.IETF)) {
            String policy = policyField(all);
            if (!policy.isEmpty()) {
                headers.add(new HttpVerdict.Header("RateLimit-Policy", policy));
            }
            if (known) {
                StringBuilder current = new StringBuilder();
                StructuredFields.appendString(current, decision.binding().name());
                StructuredFields.appendIntegerParameter(current, "r", decision.remaining());
                StructuredFields.appendIntegerParameter(current, "t", resetSeconds);
                headers.add(new HttpVerdict.Header("RateLimit", current.toString()));
            }
        }
        if (families.contains(HeaderFamily.X_RATE_LIMIT) && known) {
            headers.add(new HttpVerdict.Header("X-RateLimit-Limit", Long.toString(decision.limit())));
            headers.add(new HttpVerdict.Header("X-RateLimit-Remaining", Long.toString(decision.remaining())));
            headers.add(new HttpVerdict.Header("X-RateLimit-Reset", Long.toString(resetSeconds)));
        }
    }

    private String policyField(List<Limit> limits) {
        PolicyField[] known = policyFields;
        for (PolicyField field : known) {
            if (field.limits() == limits) {
                return field.value();
            }
        }
        StringBuilder policy = new StringBuilder();
        for (Limit limit : limits) {
            if (policy.length() > 0) {
                policy.append(", ");
            }
            StructuredFields.appendString(policy, limit.name());
            StructuredFields.appendIntegerParameter(policy, "q", limit.permits());
            StructuredFields.appendIntegerParameter(policy, "w", Math.max(1, ceilSeconds(limit.periodMicros())));
        }
        String value = policy.toString();
        if (known.length < POLICY_FIELDS) {
            // Two threads adding at once may drop one's entry: it is formatted again next time.
            PolicyField[] grown = Arrays.copyOf(known, known.length + 1);
            grown[known.length] = new PolicyField(limits, value);
            policyFields = grown;
        }
        return value;
    }

    private static long ceilSeconds(long micros) {
        return (micros + MICROS_PER_SECOND - 1) / MICROS_PER_SECOND;
    }

    private static String period(Limit limit) {
        Duration period = limit.period();
        return period.toMillis() % 1000 == 0 ? period.toSeconds() + " s" : period.toMillis() + " ms";
    }

    private static String problemStart(String type, String title, int status) {
        StringBuilder json = new StringBuilder().append('{');
        Json.member(json, "type", type);
        Json.member(json, "title", title);
        return json.append(",\"status\":").append(status).toString();
    }

    private static String problem(String start, String detail, @Nullable PolicyDecision decision,
                                  @Nullable Long retryAfter) {
        StringBuilder json = new StringBuilder(512).append(start);
        Json.member(json, "detail", detail);
        if (decision != null) {
            decision.decision().ifPresent(d -> Json.member(json, "policy", d.binding().name()));
            decision.tier().ifPresent(tier -> Json.member(json, "tier", tier));
            decision.endpoint().ifPresent(endpoint -> Json.member(json, "endpoint", endpoint));
        }
        if (retryAfter != null) {
            json.append(",\"retry-after\":").append(retryAfter);
        }
        return json.append('}').toString();
    }

    @Override
    public String toString() {
        return "HttpRateLimiter[" + identity + ", headers " + families + "]";
    }

    /** Builds an {@link HttpRateLimiter}. Not thread-safe. */
    public static final class Builder {

        private final PolicyLimiter limiter;
        private ClientIdentity identity = ClientIdentity.ofDefaults();
        private Set<HeaderFamily> families = EnumSet.of(HeaderFamily.IETF);
        private String realm = "api";

        private Builder(PolicyLimiter limiter) {
            this.limiter = limiter;
        }

        /** How callers are identified. Default {@link ClientIdentity#ofDefaults()}. */
        public Builder identity(ClientIdentity identity) {
            this.identity = Objects.requireNonNull(identity, "identity");
            return this;
        }

        /** Which rate-limit header families every limited response carries; may be empty. Default IETF. */
        public Builder headers(Set<HeaderFamily> families) {
            this.families = EnumSet.noneOf(HeaderFamily.class);
            this.families.addAll(Objects.requireNonNull(families, "families"));
            return this;
        }

        /** The realm of the 401's {@code WWW-Authenticate: ApiKey realm="..."} challenge. Default {@code api}. */
        public Builder realm(String realm) {
            Objects.requireNonNull(realm, "realm");
            if (!realm.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '"' && c != '\\')) {
                throw new IllegalArgumentException("realm must be printable ASCII without quotes or backslashes: '"
                        + realm + "'");
            }
            this.realm = realm;
            return this;
        }

        /** Builds the limiter. */
        public HttpRateLimiter build() {
            return new HttpRateLimiter(this);
        }
    }
}
