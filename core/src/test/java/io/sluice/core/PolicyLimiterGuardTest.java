package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.Decision;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The policy limiter on the guard's chain: per-rule failure policies from the file, shadow denials counted as such. */
class PolicyLimiterGuardTest {

    private static final String POLICY = """
            failure-policy: fail-open
            tiers:
              - name: pro
                limits:
                  - {name: per-second, algorithm: token-bucket, permits: 100, period: 1s, failure-policy: fallback}
                  - {name: per-day, algorithm: fixed-window, permits: 1_000_000, period: 1d}
                  - {name: per-minute, algorithm: fixed-window, permits: 50, period: 1m, shadow: true}
            api-keys:
              unknown: reject
              keys:
                - {key: pro-key, tier: pro}
            endpoints:
              - name: login
                method: POST
                path: /v1/login
                per-key:
                  - {name: attempts, algorithm: fixed-window, permits: 5, period: 1m, failure-policy: fail-closed}
            """;

    private final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
    private final OutageStore store = new OutageStore(LocalStore.builder().clockForTesting(clock).build());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PolicyLimiter limiter = PolicyLimiter.builder().config(PolicyConfig.parse(POLICY, "policy.yaml"))
            .store(store).guard(StoreGuard.custom().clockForTesting(clock).instances(10).meterRegistry(registry)
                    .build()).build();

    @AfterEach
    void closeStore() {
        store.close();
    }

    private static Decision decision(PolicyDecision decision) {
        return decision.decision().orElseThrow();
    }

    private double decisions(String rule, String outcome) {
        var counter = registry.find(StoreGuard.DECISIONS).tags("rule", rule, "outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void eachRuleAnswersAnOutageByItsOwnPolicy() {
        store.set(OutageStore.Mode.DOWN);
        // per-second falls back on a tenth (10), per-day fails open: the fallback decides.
        int admitted = 0;
        for (int i = 0; i < 20; i++) {
            PolicyDecision decision = limiter.decide(ApiRequest.of("pro-key", "192.0.2.1", "GET", "/v1/things"));
            assertThat(decision(decision).reason()).isEqualTo(Decision.Reason.FALLBACK);
            admitted += decision.allowed() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(10);
        assertThat(decisions("tier.pro.per-second", "fallback-allowed")).isEqualTo(10);
        assertThat(decisions("tier.pro.per-second", "fallback-denied")).isEqualTo(10);
        // The login's attempts fail closed: the whole call is denied, and says the store failed.
        PolicyDecision login = limiter.decide(ApiRequest.of("pro-key", "192.0.2.1", "POST", "/v1/login"));
        assertThat(login.allowed()).isFalse();
        assertThat(decision(login).reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        assertThat(decision(login).binding().name()).isEqualTo("endpoint.login.per-key.attempts");
    }

    @Test
    void aShadowRulesDenialIsCountedAsShadowDenied() {
        for (int i = 0; i < 50; i++) {
            assertThat(limiter.decide(ApiRequest.of("pro-key", "192.0.2.1", "GET", "/v1/things")).allowed()).isTrue();
            clock.advanceMicros(20_000);
        }
        PolicyDecision over = limiter.decide(ApiRequest.of("pro-key", "192.0.2.1", "GET", "/v1/things"));
        assertThat(over.allowed()).isTrue();
        assertThat(over.shadowDenied()).isTrue();
        assertThat(decisions("tier.pro.per-minute", "shadow-denied")).isEqualTo(1);
        assertThat(decisions("tier.pro.per-minute", "denied")).isZero();
        assertThat(over.tier()).isEqualTo(Optional.of("pro"));
    }
}
