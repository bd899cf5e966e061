package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The policy file's {@code leasing} section: read, checked line by line, and used by the limiter it builds. */
class PolicyLeasingTest {

    private static final String TIERS = """
            tiers:
              - name: free
                limits:
                  - name: per-minute
                    algorithm: fixed-window
                    permits: 1000
                    period: 1m
            api-keys:
              keys:
                - key: k1
                  tier: free
            """;

    @Test
    void noSectionNoLeasing() {
        assertThat(PolicyConfig.parse(TIERS, "policy.yaml").leasing()).isEmpty();
    }

    @Test
    void theSectionAloneTurnsLeasingOnWithTheDefaults() {
        PolicyConfig config = PolicyConfig.parse("leasing:\n" + TIERS, "policy.yaml");
        assertThat(config.leasing()).hasValueSatisfying(policy -> {
            assertThat(policy.share).isEqualTo(LeasePolicy.DEFAULT_SHARE);
            assertThat(policy.lengthShare).isEqualTo(LeasePolicy.DEFAULT_LENGTH_SHARE);
            assertThat(policy.minTokens).isEqualTo(LeasePolicy.DEFAULT_MIN_TOKENS);
        });
        assertThat(config.toString()).contains("leasing");
    }

    @Test
    void everyFieldIsRead() {
        PolicyConfig config = PolicyConfig.parse("""
                leasing:
                  share: 5%
                  length-share: 0.5
                  min-tokens: 3
                  max-keys: 1000
                  refill-ahead: true
                """ + TIERS, "policy.yaml");
        LeasePolicy policy = config.leasing().orElseThrow();
        assertThat(policy.refillAhead).isTrue();
        assertThat(PolicyConfig.parse("leasing: {}\n" + TIERS, "policy.yaml").leasing().orElseThrow().refillAhead)
                .isFalse();
        assertThat(policy.share).isEqualTo(0.05);
        assertThat(policy.lengthShare).isEqualTo(0.5);
        assertThat(policy.minTokens).isEqualTo(3);
        assertThat(policy.maxKeys).isEqualTo(1000);
    }

    @Test
    void everyBadFieldIsAProblemAtItsLine() {
        PolicyCheck check = PolicyConfig.check("""
                leasing:
                  share: 150%
                  length-share: none
                  min-tokens: 0
                  lease: 1s
                  refill-ahead: soon
                """ + TIERS, "policy.yaml");
        assertThat(check.problems()).containsExactly(
                new PolicyProblem("policy.yaml", 2, "share must be a share above 0% and at most 100%, such as 10% or "
                        + "0.1: '150%'"),
                new PolicyProblem("policy.yaml", 3, "length-share must be a share above 0% and at most 100%, such as "
                        + "10% or 0.1: 'none'"),
                new PolicyProblem("policy.yaml", 4, "min-tokens must be in 1..9223372036854775807: 0"),
                new PolicyProblem("policy.yaml", 5, "unknown field 'lease' in leasing (expected one of "
                        + "[length-share, max-keys, min-tokens, refill-ahead, share])"),
                new PolicyProblem("policy.yaml", 6, "expected true or false, got 'soon'"));
    }

    @Test
    void aLimiterBuiltOnTheFileLeasesAndItsCloseGivesTheTokensBack() {
        VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            PolicyLimiter limiter = PolicyLimiter.builder().config(PolicyConfig.parse("leasing:\n" + TIERS, "p.yaml"))
                    .store(store).guard(StoreGuard.custom().clockForTesting(clock).meterRegistry(registry).build())
                    .build();
            for (int i = 0; i < 5; i++) {
                assertThat(limiter.decide(ApiRequest.of("k1", "10.0.0.1", "GET", "/")).allowed()).isTrue();
            }
            // 20 s into a minute: one request alone, then leases of 1, 2 and 3 (what the rate so far asks
            // for in the 40 s the window has left, rounded down): 2 tokens held.
            assertThat(registry.get(StoreGuard.LEASE_DECISIONS).counter().count()).isEqualTo(1);
            limiter.close();
            assertThat(registry.get(StoreGuard.LEASE_RETURNED_TOKENS).tag("outcome", "returned").counter().count())
                    .isEqualTo(2);
            PolicyLimiter reader = PolicyLimiter.builder().config(PolicyConfig.parse(TIERS, "p.yaml")).store(store)
                    .guard(StoreGuard.custom().clockForTesting(clock).build()).build();
            assertThat(reader.decide(ApiRequest.of("k1", "10.0.0.1", "GET", "/")).decision().orElseThrow().remaining())
                    .as("the store's own count, after one more").isEqualTo(1000 - 5 - 1);
        }
    }
}
