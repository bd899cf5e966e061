package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Decision;
import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * The cost of a request is the cost of the first endpoint rule that matches its method and
 * path (else 1), and exactly that many tokens are taken from every limit of the request.
 */
class EndpointCostProperties {

    private static final long CAPACITY = 1_000;
    private static final List<String> PATTERNS = List.of("/v1/reports", "/v1/*", "/v1/{id}/x", "/**",
            "/v1/items/**", "/v2/a", "/", "/v1/items/{id}");
    private static final List<String> PATHS = List.of("/v1/reports", "/v1/reports/", "/v1//reports?x=1",
            "/v1/x/../reports", "/v1/%72eports", "/v1/items", "/v1/items/7", "/v1/items/7/parts", "/v1/7/x",
            "/v2/a", "/v2/b", "/", "/v1");

    record Endpoint(String pattern, List<String> methods, long cost) {
    }

    private final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
    private final Store store = LocalStore.builder().clockForTesting(clock).build();
    private final AtomicLong keys = new AtomicLong();

    @AfterProperty
    void closeStore() {
        store.close();
    }

    @Provide
    Arbitrary<List<Endpoint>> endpoints() {
        Arbitrary<List<String>> methods = Arbitraries.of(List.of(), List.of("GET"), List.of("POST"),
                List.of("GET", "POST"));
        return Combinators.combine(Arbitraries.of(PATTERNS), methods, Arbitraries.longs().between(1, 50))
                .as(Endpoint::new).list().ofMinSize(1).ofMaxSize(5);
    }

    @Property(tries = 200)
    void theFirstMatchingRuleGivesTheCostTakenFromEveryLimit(@ForAll("endpoints") List<Endpoint> endpoints,
                                                             @ForAll("methods") String method,
                                                             @ForAll("paths") String path) {
        PolicyLimiter limiter = PolicyLimiter.builder().config(PolicyConfig.parse(policy(endpoints), "cost.yaml"))
                .store(store).tierResolver(key -> Optional.of("t")).build();
        int expected = firstMatch(endpoints, method, path);
        long expectedCost = expected < 0 ? 1 : endpoints.get(expected).cost();

        PolicyDecision decision = limiter.decide(ApiRequest.of("key-" + keys.incrementAndGet(), "198.51.100.7",
                method, path));

        assertThat(decision.endpoint()).isEqualTo(expected < 0 ? Optional.empty() : Optional.of("e" + expected));
        assertThat(decision.cost()).isEqualTo(expectedCost);
        Decision limits = decision.decision().orElseThrow();
        assertThat(limits.allowed()).isTrue();
        // Both tier limits start full, so the least remaining is what the cost left of them.
        assertThat(limits.remaining()).isEqualTo(CAPACITY - expectedCost);
    }

    @Provide
    Arbitrary<String> methods() {
        return Arbitraries.of("GET", "POST", "DELETE", "get");
    }

    @Provide
    Arbitrary<String> paths() {
        return Arbitraries.of(PATHS);
    }

    /** The reference: each pattern as a regular expression over the path, cleaned by hand. */
    private static int firstMatch(List<Endpoint> endpoints, String method, String path) {
        String cleaned = path.replaceAll("\\?.*", "").replace("%72", "r").replace("/x/../", "/")
                .replaceAll("/+", "/").replaceAll("/$", "");
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint endpoint = endpoints.get(i);
            boolean methodMatches = endpoint.methods().isEmpty()
                    || endpoint.methods().contains(method.toUpperCase(Locale.ROOT));
            if (methodMatches && Pattern.matches(regexOf(endpoint.pattern()), cleaned)) {
                return i;
            }
        }
        return -1;
    }

    /** The regular expression of a pattern over a path whose root is the empty string. */
    private static String regexOf(String pattern) {
        StringBuilder regex = new StringBuilder();
        for (String segment : pattern.substring(1).split("/")) {
            if (segment.equals("**")) {
                regex.append("(/[^/]+)*");
            } else if (segment.equals("*") || segment.startsWith("{")) {
                regex.append("/[^/]+");
            } else if (!segment.isEmpty()) {
                regex.append('/').append(Pattern.quote(segment));
            }
        }
        return regex.toString();
    }

    private static String policy(List<Endpoint> endpoints) {
        StringBuilder yaml = new StringBuilder("""
                tiers:
                  - name: t
                    limits:
                      - {name: per-second, algorithm: token-bucket, permits: 1000, period: 1s}
                      - {name: per-day, algorithm: fixed-window, permits: 1000, period: 1d}
                endpoints:
                """);
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint endpoint = endpoints.get(i);
            yaml.append("  - name: e").append(i).append('\n')
                    .append("    path: ").append(endpoint.pattern()).append('\n')
                    .append("    cost: ").append(endpoint.cost()).append('\n');
            if (!endpoint.methods().isEmpty()) {
                yaml.append("    method: ").append(endpoint.methods()).append('\n');
            }
        }
        return yaml.toString();
    }
}
