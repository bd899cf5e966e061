package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.core.ApiRequest;
import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyDecision;
import io.sluice.core.PolicyLimiter;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.UnreachableStore;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.http.StructuredFieldParser;
import io.sluice.testkit.http.StructuredFieldParser.Item;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class HttpRateLimiterTest {

    static final String POLICY = """
            tiers:
              - name: free
                limits:
                  - name: per-second
                    algorithm: token-bucket
                    permits: 2
                    period: 5s
                  - name: per-day
                    algorithm: fixed-window
                    permits: 1000
                    period: 1d
            api-keys:
              keys:
                - key: "free-0123456789abcdef"
                  tier: free
            """;

    private final VirtualClock clock = new VirtualClock(1_000_000_000_000L);
    private final Store store = LocalStore.builder().clockForTesting(clock).build();
    private final PolicyLimiter policyLimiter = PolicyLimiter.builder()
            .config(PolicyConfig.parse(POLICY, "test.yaml")).store(store).build();
    private final HttpRateLimiter limiter = HttpRateLimiter.custom(policyLimiter)
            .headers(EnumSet.allOf(HeaderFamily.class)).build();

    private static TestRequest withKey(String key) {
        return TestRequest.get("/v1/things", "203.0.113.5").header("X-Api-Key", key);
    }

    @Test
    void anAdmittedRequestIsForwardedWithStructuredRateLimitFields() {
        HttpVerdict verdict = limiter.decide(withKey("free-0123456789abcdef"));

        assertThat(verdict.forward()).isTrue();
        assertThat(verdict.outcome()).isEqualTo(HttpVerdict.Outcome.ALLOWED);
        Map<String, String> headers = headers(verdict);
        List<Item> policy = StructuredFieldParser.parseList(headers.get("RateLimit-Policy"));
        assertThat(policy).extracting(Item::value).containsExactly("tier.free.per-second", "tier.free.per-day");
        assertThat(policy.get(0).parameters()).containsEntry("q", 2L).containsEntry("w", 5L);
        assertThat(policy.get(1).parameters()).containsEntry("q", 1000L).containsEntry("w", 86_400L);
        List<Item> current = StructuredFieldParser.parseList(headers.get("RateLimit"));
        assertThat(current).hasSize(1);
        assertThat(current.get(0).value()).isEqualTo("tier.free.per-second");
        assertThat(current.get(0).parameters()).containsEntry("r", 1L).containsEntry("t", 3L);
        assertThat(headers).containsEntry("X-RateLimit-Limit", "2").containsEntry("X-RateLimit-Remaining", "1")
                .containsEntry("X-RateLimit-Reset", "3");
    }

    @Test
    void overTheLimitIs429WithRetryAfterRoundedUpAndAProblemNamingThePolicy() {
        limiter.decide(withKey("free-0123456789abcdef"));
        limiter.decide(withKey("free-0123456789abcdef"));
        clock.advance(Duration.ofMillis(100));

        HttpVerdict verdict = limiter.decide(withKey("free-0123456789abcdef"));

        assertThat(verdict.forward()).isFalse();
        assertThat(verdict.status()).isEqualTo(429);
        // One token refills in 2.5 s; 2.4 s are left, rounded up to 3.
        assertThat(headers(verdict)).containsEntry("Retry-After", "3");
        assertThat(verdict.body()).contains("\"type\":\"" + HttpRateLimiter.RATE_LIMITED + "\"", "\"status\":429",
                "\"policy\":\"tier.free.per-second\"", "\"tier\":\"free\"", "\"retry-after\":3");
        assertThat(verdict.client()).startsWith("key:free...#").hasSize("key:free...#".length() + 12);
    }

    @Test
    void anUnknownKeyIs401WithoutAStoreCallAndNoKeyIs401Too() {
        HttpVerdict unknown = limiter.decide(withKey("made-up"));
        HttpVerdict none = limiter.decide(TestRequest.get("/v1/things", "203.0.113.5"));

        assertThat(unknown.status()).isEqualTo(401);
        assertThat(unknown.body()).contains(HttpRateLimiter.UNKNOWN_API_KEY);
        assertThat(headers(unknown)).containsKey("WWW-Authenticate").doesNotContainKey("RateLimit");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.body()).contains(HttpRateLimiter.API_KEY_REQUIRED);
        assertThat(unknown.client()).isEqualTo("ip:203.0.113.5");
    }

    @Test
    void aFailClosedStoreOutageIs503NeverA429() {
        PolicyLimiter failing = PolicyLimiter.builder().config(PolicyConfig.parse(POLICY, "test.yaml"))
                .store(new UnreachableStore()).build();

        HttpVerdict verdict = HttpRateLimiter.custom(failing).build().decide(withKey("free-0123456789abcdef"));

        assertThat(verdict.status()).isEqualTo(503);
        assertThat(verdict.outcome()).isEqualTo(HttpVerdict.Outcome.UNAVAILABLE);
        assertThat(verdict.body()).contains(HttpRateLimiter.STORE_UNAVAILABLE).doesNotContain(
                HttpRateLimiter.RATE_LIMITED);
        assertThat(headers(verdict)).doesNotContainKeys("Retry-After", "RateLimit");
    }

    @Test
    void theFamiliesEmittedAreConfigurable() {
        HttpVerdict none = HttpRateLimiter.custom(policyLimiter).headers(EnumSet.noneOf(HeaderFamily.class)).build()
                .decide(withKey("free-0123456789abcdef"));
        HttpVerdict legacy = HttpRateLimiter.custom(policyLimiter).headers(EnumSet.of(HeaderFamily.X_RATE_LIMIT))
                .build().decide(withKey("free-0123456789abcdef"));

        assertThat(none.headers()).isEmpty();
        assertThat(headers(legacy)).containsOnlyKeys("X-RateLimit-Limit", "X-RateLimit-Remaining",
                "X-RateLimit-Reset");
    }

    @Test
    void eachPlanKeepsItsOwnRateLimitPolicyAcrossInterleavedRequests() {
        PolicyLimiter twoTiers = PolicyLimiter.builder().config(PolicyConfig.parse("""
                tiers:
                  - name: free
                    limits:
                      - name: per-minute
                        algorithm: fixed-window
                        permits: 10
                        period: 1m
                  - name: pro
                    limits:
                      - name: per-second
                        algorithm: token-bucket
                        permits: 100
                        period: 1s
                api-keys:
                  keys:
                    - key: "free-key"
                      tier: free
                    - key: "pro-key"
                      tier: pro
                """, "two.yaml")).store(store).build();
        HttpRateLimiter http = HttpRateLimiter.custom(twoTiers).build();

        for (int i = 0; i < 3; i++) {
            assertThat(headers(http.decide(withKey("free-key")))).containsEntry("RateLimit-Policy",
                    "\"tier.free.per-minute\";q=10;w=60");
            assertThat(headers(http.decide(withKey("pro-key")))).containsEntry("RateLimit-Policy",
                    "\"tier.pro.per-second\";q=100;w=1");
        }
    }

    @Test
    void decideWaitsThroughThePolicyLimitersDecideAndDecidesAsTheStageDoes() {
        Store otherStore = LocalStore.builder().clockForTesting(clock).build();
        PolicyLimiter onlyWaits = new PolicyLimiter() {
            private final PolicyLimiter real = PolicyLimiter.builder()
                    .config(PolicyConfig.parse(POLICY, "test.yaml")).store(otherStore).build();

            @Override
            public PolicyDecision decide(ApiRequest request) {
                return real.decide(request);
            }

            @Override
            public CompletionStage<PolicyDecision> decideAsync(ApiRequest request) {
                throw new AssertionError("decide() must not go through decideAsync()");
            }

            @Override
            public void close() {
                real.close();
            }
        };
        HttpRateLimiter waiting = HttpRateLimiter.custom(onlyWaits).headers(EnumSet.allOf(HeaderFamily.class)).build();

        TestRequest known = withKey("free-0123456789abcdef");
        for (TestRequest request : List.of(known, known, known, withKey("no-such-key"),
                TestRequest.get("/v1/things", "203.0.113.5"))) {
            HttpVerdict waited = waiting.decide(request);
            HttpVerdict staged = limiter.decideAsync(request).toCompletableFuture().join();

            assertThat(waited.status()).isEqualTo(staged.status());
            assertThat(waited.headers()).isEqualTo(staged.headers());
            assertThat(waited.body()).isEqualTo(staged.body());
        }
        otherStore.close();
    }

    @Test
    void limitNamesAreEscapedIntoValidStrings() {
        StringBuilder out = new StringBuilder();
        StructuredFields.appendString(out, "a\"b\\c\u00e9");
        StructuredFields.appendIntegerParameter(out, "q", 5);

        Item item = StructuredFieldParser.parseList(out.toString()).get(0);
        assertThat(item.value()).isEqualTo("a\"b\\c?");
        assertThat(item.parameters()).containsEntry("q", 5L);
    }

    private static Map<String, String> headers(HttpVerdict verdict) {
        return verdict.headers().stream().collect(Collectors.toMap(HttpVerdict.Header::name,
                HttpVerdict.Header::value));
    }
}
