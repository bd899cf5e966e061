package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link PolicyLimiter#decide} waits on the calling thread through the store's own wait, as
 * {@code RateLimiter.decide} does, and decides exactly as {@link PolicyLimiter#decideAsync}.
 */
class PolicyLimiterWaitTest {

    private static final String POLICY = """
            tiers:
              - name: pro
                limits:
                  - {name: per-second, algorithm: token-bucket, permits: 5, period: 1s}
                  - {name: per-minute, algorithm: fixed-window, permits: 12, period: 1m, shadow: true}
            api-keys:
              unknown: reject
              keys:
                - {key: pro-a, tier: pro}
                - {key: pro-b, tier: pro}
            endpoints:
              - name: reports
                path: /v1/reports
                cost: 2
                global:
                  - {name: per-second, algorithm: gcra, permits: 6, period: 1s}
            """;
    private static final long START = 1_700_000_000_000_000L;
    /** A store that bounds its own wait by this, as the grid stores do; within the guard's timeout. */
    private static final Duration WAIT_BOUND = Duration.ofMillis(100);

    /** A limiter of {@link #POLICY} on a store of its own that bounds its own wait, metered in {@code registry}. */
    private static PolicyLimiter limiter(OutageStore store, VirtualClock clock, SimpleMeterRegistry registry) {
        return PolicyLimiter.builder().config(PolicyConfig.parse(POLICY, "policy.yaml")).store(store)
                .guard(StoreGuard.custom().clockForTesting(clock).timeout(WAIT_BOUND).meterRegistry(registry).build())
                .build();
    }

    private static OutageStore waitingStore(VirtualClock clock) {
        return new OutageStore(LocalStore.builder().clockForTesting(clock).build(), WAIT_BOUND);
    }

    @Test
    void eachStepWaitsForTheStoresOwnAnswerOnTheCallingThread() {
        VirtualClock clock = new VirtualClock(START);
        try (OutageStore store = waitingStore(clock);
             PolicyLimiter limiter = limiter(store, clock, new SimpleMeterRegistry())) {
            PolicyDecision decision = limiter.decide(ApiRequest.of("pro-a", "192.0.2.1", "POST", "/v1/reports"));

            assertThat(decision.allowed()).isTrue();
            // The client's enforced limits, its shadow limit, then the endpoint's global limit: three
            // steps, each waited for by the store.
            assertThat(store.calls()).isEqualTo(3);
            assertThat(store.waited()).isEqualTo(3);

            limiter.decideAsync(ApiRequest.of("pro-a", "192.0.2.1", "POST", "/v1/reports"))
                    .toCompletableFuture().join();

            assertThat(store.calls()).isEqualTo(6);
            assertThat(store.waited()).isEqualTo(3);
        }
    }

    @Test
    void aShadowLimitsDenialWaitedForIsCountedAsShadowDenied() {
        VirtualClock clock = new VirtualClock(START);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (OutageStore store = waitingStore(clock); PolicyLimiter limiter = limiter(store, clock, registry)) {
            for (int i = 0; i < 12; i++) {
                assertThat(limiter.decide(ApiRequest.of("pro-a", "192.0.2.1", "GET", "/v1/things")).allowed()).isTrue();
                clock.advanceMicros(250_000);
            }

            PolicyDecision over = limiter.decide(ApiRequest.of("pro-a", "192.0.2.1", "GET", "/v1/things"));

            assertThat(over.allowed()).isTrue();
            assertThat(over.shadowDenied()).isTrue();
            assertThat(outcomes(registry)).containsEntry("tier.pro.per-minute shadow-denied", 1.0)
                    .doesNotContainKey("tier.pro.per-minute denied");
            assertThat(store.waited()).isEqualTo(store.calls());
        }
    }

    /** One request of a sequence: whose, to which path, after how long. */
    record Step(String apiKey, String path, long waitMicros) {
    }

    @Provide
    Arbitrary<List<Step>> requests() {
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.of("pro-a", "pro-b", "unknown-key"),
                Arbitraries.of("/v1/reports", "/v1/things"),
                Arbitraries.longs().between(0, 400_000)).as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 200)
    void decidingAndWaitingDecidesAsTheStageDoes(@ForAll("requests") List<Step> requests) {
        VirtualClock waitingClock = new VirtualClock(START);
        VirtualClock stagedClock = new VirtualClock(START);
        SimpleMeterRegistry waitingMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry stagedMeters = new SimpleMeterRegistry();
        try (OutageStore waitingStore = waitingStore(waitingClock); OutageStore stagedStore = waitingStore(stagedClock);
             PolicyLimiter waiting = limiter(waitingStore, waitingClock, waitingMeters);
             PolicyLimiter staged = limiter(stagedStore, stagedClock, stagedMeters)) {
            for (Step step : requests) {
                ApiRequest request = ApiRequest.of(step.apiKey(), "192.0.2.1", "POST", step.path());

                PolicyDecision waited = waiting.decide(request);
                PolicyDecision fromStage = staged.decideAsync(request).toCompletableFuture().join();

                assertThat(waited).as(step.toString()).isEqualTo(fromStage);
                waitingClock.advanceMicros(step.waitMicros());
                stagedClock.advanceMicros(step.waitMicros());
            }
            assertThat(outcomes(waitingMeters)).isEqualTo(outcomes(stagedMeters));
            assertThat(waitingStore.waited()).isEqualTo(waitingStore.calls());
            assertThat(stagedStore.waited()).isZero();
        }
    }

    /** Every decision counter by its rule and outcome. */
    private static Map<String, Double> outcomes(SimpleMeterRegistry registry) {
        Map<String, Double> outcomes = new TreeMap<>();
        for (Counter counter : registry.find(StoreGuard.DECISIONS).counters()) {
            outcomes.put(counter.getId().getTag("rule") + " " + counter.getId().getTag("outcome"), counter.count());
        }
        return outcomes;
    }
}
