package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Store;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;

/**
 * All the limits of one request (a tier's and an endpoint's per-key limits, with the
 * endpoint's cost) are decided together, all-or-nothing: on any store, every decision equals
 * the one of the reference {@link KeyState}, which charges every limit of a call if and only
 * if all admit it, on the limits of the request only.
 */
abstract class AllOrNothingContract {

    static final String POLICY = """
            tiers:
              - name: t
                limits:
                  - {name: per-second, algorithm: token-bucket, permits: 10, period: 1s, burst: 12}
                  - {name: per-minute, algorithm: fixed-window, permits: 40, period: 1m}
            endpoints:
              - name: reports
                method: POST
                path: /v1/reports
                cost: 4
                per-key:
                  - {name: per-10s, algorithm: sliding-log, permits: 12, period: 10s}
              - name: items
                path: /v1/items/{id}
                cost: 2
                per-key:
                  - {name: per-second, algorithm: gcra, permits: 3, period: 1s, burst: 6}
                  - {name: per-minute, algorithm: sliding-window-counter, permits: 20, period: 1m}
            """;

    record Call(int client, int endpoint, long advanceMicros) {
    }

    private final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
    private final Store store = createStore(clock);
    /**
     * The breaker on the store's virtual clock, and no block cache: this property compares every
     * figure with the reference, and a cached denial's figures are those of the denial it repeats.
     * A generous timeout: a property compares decisions, and the build shares two cores with other
     * builds, where the default timeout turns a slow answer into STORE_UNAVAILABLE.
     */
    final StoreGuard guard = StoreGuard.custom().clockForTesting(clock).blockCacheSize(0)
            .timeout(Duration.ofSeconds(10)).build();
    private final PolicyLimiter limiter = PolicyLimiter.builder().config(PolicyConfig.parse(POLICY, "policy.yaml"))
            .store(store).guard(guard).tierResolver(key -> Optional.of("t")).build();
    private final AtomicLong tries = new AtomicLong();

    /** A new store that decides with this clock. */
    protected abstract Store createStore(VirtualClock clock);

    @AfterProperty
    void closeStore() {
        store.close();
    }

    @Provide
    Arbitrary<List<Call>> calls() {
        Arbitrary<Long> advance = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(0L)),
                Tuple.of(5, Arbitraries.longs().between(1, 400_000)),
                Tuple.of(1, Arbitraries.longs().between(1, 20_000_000)));
        return Combinators.combine(Arbitraries.integers().between(0, 1), Arbitraries.integers().between(0, 2), advance)
                .as(Call::new).list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 60)
    void everyDecisionChargesAllLimitsOfTheRequestOrNone(@ForAll("calls") List<Call> calls) {
        long run = tries.incrementAndGet();
        Map<Integer, KeyState> reference = new HashMap<>();
        for (Call call : calls) {
            clock.advanceMicros(call.advanceMicros());
            String apiKey = "run-" + run + "-client-" + call.client();
            ApiRequest request = switch (call.endpoint()) {
                case 0 -> ApiRequest.of(apiKey, "192.0.2.1", "GET", "/v1/things");
                case 1 -> ApiRequest.of(apiKey, "192.0.2.1", "POST", "/v1/reports");
                default -> ApiRequest.of(apiKey, "192.0.2.1", "GET", "/v1/items/7");
            };
            PolicyDecision decision = limiter.decide(request);

            Decision expected = reference.computeIfAbsent(call.client(), client -> KeyState.empty())
                    .tryAcquire(decision.limits(), clock.nowMicros(), decision.cost());
            assertThat(decision.decision()).contains(expected);
            assertThat(decision.allowed()).isEqualTo(expected.allowed());
        }
    }
}
