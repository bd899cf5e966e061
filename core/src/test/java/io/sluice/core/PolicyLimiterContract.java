package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.testkit.UnreachableStore;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a policy limiter does, on any store: tiers, anonymous callers per address, endpoint
 * costs, all-or-nothing across the limits of a request, global limits, shadow mode.
 */
abstract class PolicyLimiterContract {

    static final String POLICY = """
            tiers:
              - name: free
                limits:
                  - {name: per-second, algorithm: token-bucket, permits: 10, period: 1s}
                  - {name: per-day, algorithm: fixed-window, permits: 10_000, period: 1d}
              - name: pro
                limits:
                  - {name: per-second, algorithm: token-bucket, permits: 100, period: 1s}
                  - {name: per-day, algorithm: fixed-window, permits: 1_000_000, period: 1d}
            api-keys:
              unknown: reject
              keys:
                - {key: free-key, tier: free}
                - {key: free-key-2, tier: free}
                - {key: pro-key, tier: pro}
                - {key: pro-key-2, tier: pro}
            anonymous:
              limits:
                - {name: per-second, algorithm: gcra, permits: 5, period: 1s, burst: 10}
            endpoints:
              - name: reports
                method: POST
                path: /v1/reports
                cost: 10
                per-key:
                  - {name: per-minute, algorithm: sliding-log, permits: 30, period: 1m}
                global:
                  - {name: per-second, algorithm: fixed-window, permits: 50, period: 1s}
              - name: items
                path: /v1/items/{id}
                cost: 2
            """;

    final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
    final Store store = createStore(clock);
    /** The block cache and breaker on the store's virtual clock; a timeout as generous as the stores'. */
    final StoreGuard guard = StoreGuard.custom().clockForTesting(clock)
            .timeout(Duration.ofSeconds(10)).build();

    /** A new store that decides with this clock. */
    protected abstract Store createStore(VirtualClock clock);

    @AfterEach
    void closeStore() {
        store.close();
    }

    PolicyLimiter limiter(String yaml) {
        return PolicyLimiter.builder().config(PolicyConfig.parse(yaml, "test.yaml")).store(store).guard(guard)
                .build();
    }

    static ApiRequest get(String key, String path) {
        return ApiRequest.of(key, "192.0.2.1", "GET", path);
    }

    static ApiRequest post(String key, String path) {
        return ApiRequest.of(key, "192.0.2.1", "POST", path);
    }

    static Decision decision(PolicyDecision policyDecision) {
        return policyDecision.decision().orElseThrow();
    }

    @Test
    void aTierGivesItsLimitsPerKey() {
        PolicyLimiter limiter = limiter(POLICY);
        for (int i = 0; i < 100; i++) {
            assertThat(limiter.decide(get("pro-key", "/v1/x")).allowed()).isTrue();
        }
        PolicyDecision denied = limiter.decide(get("pro-key", "/v1/x"));
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.tier()).contains("pro");
        assertThat(decision(denied).binding().name()).isEqualTo("tier.pro.per-second");
        assertThat(decision(denied).retryAfter()).isPresent();
        // Another key of the same tier has its own buckets.
        assertThat(limiter.decide(get("pro-key-2", "/v1/x")).allowed()).isTrue();
        clock.advanceMicros(10_000);
        assertThat(limiter.decide(get("pro-key", "/v1/x")).allowed()).isTrue();
    }

    @Test
    void theBindingLimitIsTheOneWithLeastRemaining() {
        PolicyLimiter limiter = limiter(POLICY);
        PolicyDecision first = limiter.decide(get("free-key", "/v1/x"));
        assertThat(decision(first).binding().name()).isEqualTo("tier.free.per-second");
        assertThat(decision(first).remaining()).isEqualTo(9);
        assertThat(first.limits()).extracting(Limit::name)
                .containsExactly("tier.free.per-second", "tier.free.per-day");
    }

    @Test
    void unknownKeysAreRejectedWithoutAStoreCall() {
        PolicyDecision decision = limiter(POLICY).decide(get("made-up", "/v1/x"));
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.unknownKey()).isTrue();
        assertThat(decision.decision()).isEmpty();
        assertThat(decision.tier()).isEmpty();
    }

    @Test
    void unknownKeysOfADefaultTierShareTheBucketOfTheirAddress() {
        PolicyLimiter limiter = limiter(POLICY.replace("unknown: reject", "unknown: free"));
        for (int i = 0; i < 10; i++) {
            PolicyDecision decision = limiter.decide(get("invented-" + i, "/v1/x"));
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.unknownKey()).isTrue();
            assertThat(decision.tier()).contains("free");
        }
        assertThat(limiter.decide(get("invented-again", "/v1/x")).allowed()).isFalse();
        assertThat(limiter.decide(ApiRequest.of("invented-again", "192.0.2.2", "GET", "/v1/x")).allowed()).isTrue();
    }

    @Test
    void anonymousCallersAreLimitedPerIpv4Address() {
        PolicyLimiter limiter = limiter(POLICY);
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.decide(get(null, "/")).allowed()).isTrue();
        }
        PolicyDecision denied = limiter.decide(get(null, "/"));
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.tier()).contains("anonymous");
        assertThat(decision(denied).binding().name()).isEqualTo("anonymous.per-second");
        assertThat(limiter.decide(ApiRequest.of("", "192.0.2.2", "GET", "/")).allowed()).isTrue();
    }

    @Test
    void anonymousIpv6CallersShareTheBucketOfTheirSlash64() {
        PolicyLimiter limiter = limiter(POLICY);
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.decide(ApiRequest.of(null, "2001:db8:1:2::" + Integer.toHexString(i + 1), "GET", "/"))
                    .allowed()).isTrue();
        }
        assertThat(limiter.decide(ApiRequest.of(null, "2001:db8:1:2:ffff:ffff:ffff:ffff", "GET", "/")).allowed())
                .isFalse();
        assertThat(limiter.decide(ApiRequest.of(null, "2001:db8:1:3::1", "GET", "/")).allowed()).isTrue();
    }

    @Test
    void withoutAnonymousLimitsCallersWithoutAKeyAreRejected() {
        String policy = POLICY.substring(0, POLICY.indexOf("anonymous:")) + POLICY.substring(POLICY.indexOf("endpoints:"));
        PolicyDecision decision = limiter(policy).decide(get(null, "/"));
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.unknownKey()).isFalse();
        assertThat(decision.decision()).isEmpty();
    }

    @Test
    void anEndpointsCostIsTakenFromEveryLimitOfTheRequest() {
        PolicyLimiter limiter = limiter(POLICY);
        PolicyDecision report = limiter.decide(post("pro-key", "/v1/reports?format=pdf"));
        assertThat(report.endpoint()).contains("reports");
        assertThat(report.cost()).isEqualTo(10);
        assertThat(decision(report).binding().name()).isEqualTo("endpoint.reports.per-key.per-minute");
        assertThat(decision(report).remaining()).isEqualTo(20);
        PolicyDecision plain = limiter.decide(get("pro-key", "/v1/other"));
        assertThat(plain.cost()).isEqualTo(1);
        assertThat(decision(plain).remaining()).isEqualTo(100 - 10 - 1);
        // Method and pattern both count: a GET of the reports path is not the reports endpoint.
        assertThat(limiter.decide(get("pro-key", "/v1/reports")).endpoint()).isEmpty();
        PolicyDecision item = limiter.decide(get("pro-key", "/v1/items/42"));
        assertThat(item.endpoint()).contains("items");
        assertThat(decision(item).remaining()).isEqualTo(100 - 10 - 1 - 1 - 2);
    }

    @Test
    void whenAnEndpointLimitDeniesNoLimitOfTheRequestIsCharged() {
        PolicyLimiter limiter = limiter(POLICY);
        for (int i = 0; i < 3; i++) {
            assertThat(limiter.decide(post("pro-key", "/v1/reports")).allowed()).isTrue();
            clock.advanceMicros(100_000);
        }
        PolicyDecision denied = limiter.decide(post("pro-key", "/v1/reports"));
        assertThat(denied.allowed()).isFalse();
        assertThat(decision(denied).binding().name()).isEqualTo("endpoint.reports.per-key.per-minute");
        // The tier's per-day count holds the three admitted reports only.
        assertThat(remainingAfterProbe(denied, "pro-key", "tier.pro.per-day")).isEqualTo(1_000_000 - 30 - 1);
    }

    @Test
    void whenATierLimitDeniesTheEndpointLimitIsNotCharged() {
        PolicyLimiter limiter = limiter(POLICY);
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.decide(get("free-key", "/v1/x")).allowed()).isTrue();
        }
        PolicyDecision denied = limiter.decide(post("free-key", "/v1/reports"));
        assertThat(denied.allowed()).isFalse();
        assertThat(decision(denied).binding().name()).isEqualTo("tier.free.per-second");
        clock.advanceMicros(1_000_000);
        PolicyDecision admitted = limiter.decide(post("free-key", "/v1/reports"));
        assertThat(admitted.allowed()).isTrue();
        // The endpoint's per-minute log holds this report only.
        assertThat(remainingAfterProbe(admitted, "free-key", "endpoint.reports.per-key.per-minute"))
                .isEqualTo(30 - 10 - 1);
    }

    @Test
    void aGlobalEndpointLimitIsSharedByAllClients() {
        PolicyLimiter limiter = limiter(POLICY.replace("permits: 50, period: 1s}", "permits: 20, period: 1s}"));
        assertThat(limiter.decide(post("pro-key", "/v1/reports")).allowed()).isTrue();
        assertThat(limiter.decide(post("pro-key-2", "/v1/reports")).allowed()).isTrue();
        PolicyDecision denied = limiter.decide(post("free-key", "/v1/reports"));
        assertThat(denied.allowed()).isFalse();
        assertThat(decision(denied).binding().name()).isEqualTo("endpoint.reports.global.per-second");
        // Documented: the client's own limits were charged before the global limit denied.
        assertThat(remainingAfterProbe(denied, "free-key", "tier.free.per-day")).isEqualTo(10_000 - 10 - 1);
    }

    @Test
    void aClientOverItsOwnLimitNeverTouchesTheGlobalLimit() {
        PolicyLimiter limiter = limiter(POLICY.replace("permits: 50, period: 1s}", "permits: 20, period: 1s}"));
        assertThat(limiter.decide(post("free-key", "/v1/reports")).allowed()).isTrue();
        for (int i = 0; i < 5; i++) {
            assertThat(limiter.decide(post("free-key", "/v1/reports")).allowed()).isFalse();
        }
        assertThat(limiter.decide(post("pro-key", "/v1/reports")).allowed()).isTrue();
    }

    @Test
    void aShadowLimitReportsButNeverDenies() {
        PolicyLimiter limiter = limiter(POLICY.replace(
                "{name: per-second, algorithm: token-bucket, permits: 10, period: 1s}",
                "{name: per-second, algorithm: token-bucket, permits: 10, period: 1s, shadow: true}"));
        for (int i = 0; i < 10; i++) {
            PolicyDecision decision = limiter.decide(get("free-key", "/v1/x"));
            assertThat(decision.allowed()).isTrue();
            assertThat(decision.shadowDenied()).isFalse();
        }
        PolicyDecision shadowDenied = limiter.decide(get("free-key", "/v1/x"));
        assertThat(shadowDenied.allowed()).isTrue();
        assertThat(shadowDenied.shadowDenied()).isTrue();
        assertThat(decision(shadowDenied).allowed()).isFalse();
        assertThat(decision(shadowDenied).binding().name()).isEqualTo("tier.free.per-second");
        // The enforced per-day limit counted all eleven requests.
        assertThat(remainingAfterProbe(shadowDenied, "free-key", "tier.free.per-day")).isEqualTo(10_000 - 11 - 1);
    }

    @Test
    void aShadowLimiterNeverDeniesAndReportsWhatItWouldHaveDone() {
        PolicyLimiter limiter = limiter("shadow: true\n" + POLICY);
        for (int i = 0; i < 10; i++) {
            assertThat(limiter.decide(get("free-key", "/v1/x")).shadowDenied()).isFalse();
        }
        PolicyDecision overLimit = limiter.decide(get("free-key", "/v1/x"));
        assertThat(overLimit.allowed()).isTrue();
        assertThat(overLimit.shadowDenied()).isTrue();
        assertThat(decision(overLimit).reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
        PolicyDecision unknown = limiter.decide(get("made-up", "/v1/x"));
        assertThat(unknown.allowed()).isTrue();
        assertThat(unknown.shadowDenied()).isTrue();
        assertThat(unknown.unknownKey()).isTrue();
    }

    @Test
    void aStoreFailureIsDecidedByTheFailurePolicy() {
        PolicyDecision closed = PolicyLimiter.builder().config(PolicyConfig.parse(POLICY, "test.yaml"))
                .store(new UnreachableStore()).build().decide(get("pro-key", "/v1/x"));
        assertThat(closed.allowed()).isFalse();
        assertThat(decision(closed).reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        PolicyDecision open = PolicyLimiter.builder()
                .config(PolicyConfig.parse("failure-policy: fail-open\n" + POLICY, "test.yaml"))
                .store(new UnreachableStore()).build().decide(post("pro-key", "/v1/reports"));
        assertThat(open.allowed()).isTrue();
        assertThat(decision(open).reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
    }

    @Test
    void aTierResolverReplacesTheKeyList() {
        PolicyLimiter limiter = PolicyLimiter.builder().config(PolicyConfig.parse(POLICY, "test.yaml"))
                .store(store).guard(guard)
                .tierResolver(key -> key.startsWith("db-") ? Optional.of("pro") : Optional.empty()).build();
        assertThat(limiter.decide(get("db-123", "/v1/x")).tier()).contains("pro");
        assertThat(limiter.decide(get("pro-key", "/v1/x")).unknownKey()).isTrue();
        assertThat(limiter.decide(get("db-" + "x".repeat(StorePolicyLimiter.MAX_API_KEY_LENGTH), "/v1/x"))
                .unknownKey()).isTrue();
    }

    @Test
    void aFailingOrConfusedTierResolverMeansAnUnknownKey() {
        PolicyConfig config = PolicyConfig.parse(POLICY.replace("unknown: reject", "unknown: anonymous"), "test.yaml");
        PolicyDecision failing = PolicyLimiter.builder().config(config).store(store).guard(guard)
                .tierResolver(key -> {
                    throw new IllegalStateException("database down");
                }).build().decide(get("pro-key", "/v1/x"));
        assertThat(failing.allowed()).isTrue();
        assertThat(failing.unknownKey()).isTrue();
        assertThat(failing.tier()).contains("anonymous");
        PolicyDecision undefinedTier = PolicyLimiter.builder().config(config).store(store).guard(guard)
                .tierResolver(key -> Optional.of("platinum")).build().decide(get("pro-key", "/v1/x"));
        assertThat(undefinedTier.unknownKey()).isTrue();
    }

    /** Charges one token of one limit of the request straight in the store: what it has left after that. */
    private long remainingAfterProbe(PolicyDecision earlier, String apiKey, String limitName) {
        Limit limit = earlier.limits().stream().filter(l -> l.name().equals(limitName)).findFirst().orElseThrow();
        Decision probe = store.tryAcquire(ClientKeys.forApiKey(apiKey), List.of(limit), 1).toCompletableFuture().join();
        assertThat(probe.allowed()).isTrue();
        return probe.remaining();
    }
}
