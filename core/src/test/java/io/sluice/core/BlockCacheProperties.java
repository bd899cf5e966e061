package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;

/** A block cache never changes a decision: with and without it, the same requests get the same answers. */
class BlockCacheProperties {

    /** Hits over all tries: a property the cache never took part in would prove nothing. */
    private static final SimpleMeterRegistry METERS = new SimpleMeterRegistry();

    @AfterContainer
    static void theCacheAnsweredSomeRequests() {
        assertThat(METERS.get(StoreGuard.BLOCK_CACHE_HITS).counters()).map(counter -> counter.count())
                .anyMatch(hits -> hits > 0);
    }

    record Request(int algorithm, long cost, long advanceMicros) {
    }

    @Provide
    Arbitrary<List<Request>> requests() {
        return Combinators.combine(Arbitraries.integers().between(0, Algorithms.all().size() - 1),
                        Arbitraries.longs().between(1, 6),
                        Arbitraries.frequencyOf(
                                Tuple.of(4, Arbitraries.just(0L)),
                                Tuple.of(4, Arbitraries.longs().between(1, 60_000)),
                                Tuple.of(1, Arbitraries.longs().between(60_000, 2_000_000))))
                .as(Request::new).list().ofMinSize(1).ofMaxSize(200);
    }

    @Property(tries = 100)
    void aCachedDenialIsOneTheStoreGives(@ForAll("requests") List<Request> requests) {
        VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
        // Behind an OutageStore (always up), which is not in process: the guard calls an in-process
        // store directly, without the block cache.
        try (Store cached = StoreGuard.custom().clockForTesting(clock).meterRegistry(METERS).build()
                .wrap(new OutageStore(LocalStore.builder().clockForTesting(clock).build()));
             Store uncached = StoreGuard.custom().clockForTesting(clock).blockCacheSize(0).build()
                     .wrap(new OutageStore(LocalStore.builder().clockForTesting(clock).build()))) {
            for (Request request : requests) {
                clock.advanceMicros(request.advanceMicros());
                List<Limit> limits = List.of(Limit.of(Algorithms.all().get(request.algorithm()), 10,
                        Duration.ofMillis(100)).named("limit"));
                Decision withCache = cached.tryAcquire("client-" + request.algorithm(), limits, request.cost()).toCompletableFuture().join();
                Decision without = uncached.tryAcquire("client-" + request.algorithm(), limits, request.cost()).toCompletableFuture().join();
                assertThat(withCache.allowed()).as("%s", request).isEqualTo(without.allowed());
                assertThat(withCache.reason()).isEqualTo(without.reason());
                // A cached denial waits no longer than the store's (the store's state does not change meanwhile here).
                if (!withCache.allowed()) {
                    assertThat(withCache.retryAfter().orElseThrow())
                            .isLessThanOrEqualTo(without.retryAfter().orElseThrow());
                }
            }
        }
    }
}
