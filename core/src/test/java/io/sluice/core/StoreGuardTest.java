package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The guard's chain on a real local store under a virtual clock: block cache, breaker, timeout, failure policies. */
class StoreGuardTest {

    private static final Limit PER_SECOND = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)).named("second");
    private static final Limit PER_DAY = Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)).named("day");

    private final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
    private final OutageStore store = new OutageStore(LocalStore.builder().clockForTesting(clock).build());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void closeStore() {
        store.close();
    }

    private StoreGuard.Builder guard() {
        return StoreGuard.custom().clockForTesting(clock).meterRegistry(registry).storeName("test");
    }

    private static Decision decide(GuardedStore guarded, Limit limit, long cost) {
        return guarded.tryAcquire("client", List.of(limit), cost).toCompletableFuture().join();
    }

    private double count(String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void aDenialIsRepeatedWithoutTheStoreUntilItsRetryAfter() {
        GuardedStore guarded = guard().build().guard(store);
        for (int i = 0; i < 100; i++) {
            assertThat(decide(guarded, PER_SECOND, 1).allowed()).isTrue();
        }
        Decision denied = decide(guarded, PER_SECOND, 1);
        assertThat(denied.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
        assertThat(denied.retryAfter()).contains(Duration.ofMillis(10));
        long calls = store.calls();

        clock.advanceMicros(4_000);
        Decision cached = decide(guarded, PER_SECOND, 1);
        assertThat(cached.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
        assertThat(cached.retryAfter()).contains(Duration.ofMillis(6));
        assertThat(decide(guarded, PER_SECOND, 5).allowed()).isFalse();
        assertThat(store.calls()).isEqualTo(calls);
        assertThat(count(StoreGuard.BLOCK_CACHE_HITS, "store", "test")).isEqualTo(2);
        assertThat(count(StoreGuard.DECISIONS, "rule", "second", "outcome", "denied")).isEqualTo(3);

        clock.advanceMicros(6_000);
        assertThat(decide(guarded, PER_SECOND, 1).allowed()).isTrue();
        assertThat(store.calls()).isEqualTo(calls + 1);
    }

    @Test
    void aStoreThatDecidesInProcessIsAskedDirectlyOnEveryRequest() {
        try (Store local = LocalStore.builder().clockForTesting(clock).build()) {
            RateLimiter limiter = RateLimiter.builder().limit(PER_SECOND).store(local).layer(guard().build()).build();
            for (int i = 0; i < 100; i++) {
                assertThat(limiter.decide("client").allowed()).isTrue();
            }
            Decision denied = limiter.decide("client");
            assertThat(denied.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
            clock.advanceMicros(4_000);
            // No block cache: the store's own denial, whose wait is the store's.
            assertThat(limiter.decide("client").retryAfter()).contains(Duration.ofMillis(6));
            assertThat(limiter.decideAsync("client", 1).toCompletableFuture().join().allowed()).isFalse();

            assertThat(count(StoreGuard.BLOCK_CACHE_HITS, "store", "test")).isZero();
            assertThat(count(StoreGuard.DECISIONS, "rule", "second", "outcome", "allowed")).isEqualTo(100);
            assertThat(count(StoreGuard.DECISIONS, "rule", "second", "outcome", "denied")).isEqualTo(3);
            // Not timed: an in-process store has no latency of a call to watch.
            assertThat(registry.find(StoreGuard.STORE_LATENCY).timer().count()).isZero();
        }
    }

    @Test
    void aClosedInProcessStoreIsCountedAndAnsweredByTheFailurePolicy() {
        Store local = LocalStore.builder().clockForTesting(clock).build();
        local.close();
        RateLimiter limiter = RateLimiter.builder().limit(PER_SECOND).store(local).layer(guard().build())
                .failurePolicy(FailurePolicy.FAIL_OPEN).build();

        Decision decision = limiter.decide("client");

        assertThat(decision.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        assertThat(decision.allowed()).isTrue();
        assertThat(count(StoreGuard.STORE_ERRORS, "cause", "failure")).isEqualTo(1);
        assertThat(count(StoreGuard.DECISIONS, "rule", "second", "outcome", "unavailable-allowed")).isEqualTo(1);
    }

    @Test
    void aDenialOfALargeCostDoesNotBlockASmallerOne() {
        GuardedStore guarded = guard().build().guard(store);
        assertThat(decide(guarded, PER_SECOND, 95).allowed()).isTrue();
        assertThat(decide(guarded, PER_SECOND, 10).allowed()).isFalse();
        assertThat(decide(guarded, PER_SECOND, 5).allowed()).isTrue();
        assertThat(count(StoreGuard.BLOCK_CACHE_HITS)).isZero();
        // Other limits are another entry: the same key under another list of limits asks the store.
        assertThat(guarded.tryAcquire("client", List.of(PER_DAY), 10).toCompletableFuture().join().allowed())
                .isTrue();
    }

    @Test
    void theBreakerOpensOnFailuresAnswersWithoutTheStoreAndProbesItBack() {
        GuardedStore guarded = guard().build().guard(store);
        store.set(OutageStore.Mode.DOWN);
        for (int i = 0; i < 10; i++) {
            Decision failed = decide(guarded, PER_SECOND, 1);
            assertThat(failed.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(failed.allowed()).isFalse();
        }
        assertThat(guarded.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(registry.get(StoreGuard.BREAKER_STATE).tags("state", "open").gauge().value()).isEqualTo(1);
        long calls = store.calls();
        for (int i = 0; i < 1_000; i++) {
            assertThat(decide(guarded, PER_SECOND, 1).reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        }
        assertThat(store.calls()).isEqualTo(calls);
        assertThat(count(StoreGuard.STORE_SHORT_CIRCUITED)).isEqualTo(1_000);

        // Still down at the first probe: open again for another wait.
        clock.advance(StoreGuard.DEFAULT_WAIT_IN_OPEN_STATE.plusMillis(1));
        assertThat(decide(guarded, PER_SECOND, 1).reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        assertThat(store.calls()).isEqualTo(calls + 1);
        assertThat(guarded.breakerState()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        decide(guarded, PER_SECOND, 1);
        decide(guarded, PER_SECOND, 1);
        assertThat(guarded.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);

        store.set(OutageStore.Mode.UP);
        clock.advance(StoreGuard.DEFAULT_WAIT_IN_OPEN_STATE);
        assertThat(decide(guarded, PER_SECOND, 1).reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        clock.advanceMicros(1_000);
        for (int i = 0; i < 3; i++) {
            assertThat(decide(guarded, PER_SECOND, 1).reason()).isEqualTo(Decision.Reason.WITHIN_LIMIT);
        }
        assertThat(guarded.breakerState()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(count(StoreGuard.STORE_ERRORS, "cause", "failure")).isEqualTo(13);
    }

    @Test
    void theBreakerLogsWhenItOpensAndCloses() throws InterruptedException {
        try (LogCapture log = new LogCapture(StoreGuard.class.getName())) {
            // A name of its own: the log of other tests' guards may still be on its way.
            GuardedStore guarded = guard().storeName("breaker-logged").build().guard(store);
            store.set(OutageStore.Mode.DOWN);
            for (int i = 0; i < 10; i++) {
                decide(guarded, PER_SECOND, 1);
            }
            assertThat(guarded.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);
            assertThat(log.await(record -> record.getMessage().startsWith(
                    "circuit breaker of store breaker-logged opened"), 1)).hasSize(1);

            store.set(OutageStore.Mode.UP);
            clock.advance(StoreGuard.DEFAULT_WAIT_IN_OPEN_STATE.plusMillis(1));
            for (int i = 0; i < 3; i++) {
                decide(guarded, PER_SECOND, 1);
            }
            assertThat(guarded.breakerState()).isEqualTo(CircuitBreaker.State.CLOSED);
            assertThat(log.await(record -> record.getMessage().startsWith(
                    "circuit breaker of store breaker-logged closed"), 1)).hasSize(1);
        }
    }

    @Test
    void aStoreThatDoesNotAnswerIsCutOffAtTheTimeout() throws Exception {
        GuardedStore guarded = guard().timeout(Duration.ofMillis(20)).build().guard(store);
        store.set(OutageStore.Mode.HUNG);
        Decision decision = guarded.tryAcquire("client", List.of(PER_SECOND.withFailurePolicy(FailurePolicy.FAIL_OPEN)),
                1).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(decision.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        assertThat(decision.allowed()).isTrue();
        assertThat(count(StoreGuard.STORE_ERRORS, "cause", "timeout")).isEqualTo(1);
        assertThat(count(StoreGuard.DECISIONS, "rule", "second", "outcome", "unavailable-allowed")).isEqualTo(1);
    }

    @Test
    void aStoreThatBoundsItsWaitIsWaitedForOnTheCallersThroughTheWholeChain() {
        try (OutageStore bounded = new OutageStore(LocalStore.builder().clockForTesting(clock).build(),
                Duration.ofMillis(50))) {
            RateLimiter limiter = RateLimiter.builder().limit(PER_SECOND).store(bounded)
                    .layer(guard().storeName("bounded").build()).build();
            for (int i = 0; i < 100; i++) {
                assertThat(limiter.decide("client").allowed()).isTrue();
            }
            assertThat(limiter.decide("client").reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
            assertThat(bounded.waited()).isEqualTo(101);
            // The block cache answers the repeated denial; the store is not asked.
            clock.advanceMicros(4_000);
            assertThat(limiter.decide("client").retryAfter()).contains(Duration.ofMillis(6));
            assertThat(bounded.calls()).isEqualTo(101);
            assertThat(count(StoreGuard.BLOCK_CACHE_HITS, "store", "bounded")).isEqualTo(1);
            assertThat(registry.get(StoreGuard.STORE_LATENCY).tags("store", "bounded").timer().count()).isEqualTo(101);

            // A hung store is cut off by its own bound and answered by the failure policy.
            bounded.set(OutageStore.Mode.HUNG);
            clock.advanceMicros(10_000);
            Decision hung = limiter.decide("client");
            assertThat(hung.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(hung.allowed()).isFalse();
            bounded.set(OutageStore.Mode.DOWN);
            assertThat(limiter.decide("client").reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(count(StoreGuard.STORE_ERRORS, "store", "bounded", "cause", "timeout")).isEqualTo(1);
            assertThat(count(StoreGuard.STORE_ERRORS, "store", "bounded", "cause", "failure")).isEqualTo(1);
            assertThat(count(StoreGuard.DECISIONS, "rule", "second", "outcome", "unavailable-denied")).isEqualTo(2);
            assertThat(bounded.waited()).isEqualTo(103);
        }
    }

    @Test
    void aStoreWhoseBoundOutlastsTheGuardsTimeoutIsCutOffByTheGuard() throws Exception {
        try (OutageStore bounded = new OutageStore(LocalStore.builder().clockForTesting(clock).build(),
                Duration.ofSeconds(30))) {
            RateLimiter limiter = RateLimiter.builder().limit(PER_SECOND).store(bounded)
                    .layer(guard().storeName("outlasting").timeout(Duration.ofMillis(20)).build())
                    .failurePolicy(FailurePolicy.FAIL_OPEN).build();
            bounded.set(OutageStore.Mode.HUNG);
            Decision decision = limiter.decide("client");
            assertThat(decision.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(decision.allowed()).isTrue();
            assertThat(bounded.waited()).isZero();
            assertThat(count(StoreGuard.STORE_ERRORS, "store", "outlasting", "cause", "timeout")).isEqualTo(1);
        }
    }

    @Test
    void theFallbackGivesEachInstanceItsShareOfTheLimit() {
        Limit limit = PER_SECOND.withFailurePolicy(FailurePolicy.FALLBACK);
        StoreGuard guard = guard().instances(4).build();
        List<GuardedStore> instances = List.of(guard.guard(store), guard.guard(store), guard.guard(store),
                guard.guard(store));
        store.set(OutageStore.Mode.DOWN);
        int admitted = 0;
        for (GuardedStore instance : instances) {
            for (int i = 0; i < 100; i++) {
                Decision decision = decide(instance, limit, 1);
                assertThat(decision.reason()).isEqualTo(Decision.Reason.FALLBACK);
                admitted += decision.allowed() ? 1 : 0;
            }
        }
        assertThat(admitted).isEqualTo(100);
        Decision denied = decide(instances.get(0), limit, 1);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.binding()).isEqualTo(limit);
        assertThat(denied.retryAfter()).contains(Duration.ofMillis(40));
        assertThat(count(StoreGuard.DECISIONS, "rule", "second", "outcome", "fallback-allowed")).isEqualTo(100);
        // A quarter of the rate refills each instance's share.
        clock.advanceMicros(40_000);
        assertThat(decide(instances.get(0), limit, 1).allowed()).isTrue();
    }

    @Test
    void theFallbackStartsFromWhatThisInstanceLeftOfItsShare() {
        Limit limit = PER_SECOND.withFailurePolicy(FailurePolicy.FALLBACK);
        GuardedStore guarded = guard().instances(4).build().guard(store);
        for (int i = 0; i < 20; i++) {
            assertThat(decide(guarded, limit, 1).reason()).isEqualTo(Decision.Reason.WITHIN_LIMIT);
        }
        store.set(OutageStore.Mode.DOWN);
        int admitted = 0;
        for (int i = 0; i < 100; i++) {
            admitted += decide(guarded, limit, 1).allowed() ? 1 : 0;
        }
        // Its share is 25, of which the store already admitted 20 for this instance.
        assertThat(admitted).isEqualTo(5);
    }

    @Test
    void theStrictestPolicyOfARequestsLimitsApplies() {
        GuardedStore guarded = guard().instances(100).build().guard(store);
        store.set(OutageStore.Mode.DOWN);
        Limit fallback = PER_SECOND.withFailurePolicy(FailurePolicy.FALLBACK);
        Decision closed = guarded.tryAcquire("client", List.of(fallback, PER_DAY.withFailurePolicy(
                FailurePolicy.FAIL_CLOSED)), 1).toCompletableFuture().join();
        assertThat(closed.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        assertThat(closed.allowed()).isFalse();
        assertThat(closed.binding().name()).isEqualTo("day");
        // Fail-open limits impose nothing in the fallback: only the fallback limit's share (1) counts.
        List<Limit> openAndFallback = List.of(PER_DAY.withFailurePolicy(FailurePolicy.FAIL_OPEN), fallback);
        assertThat(guarded.tryAcquire("client", openAndFallback, 1).toCompletableFuture().join().allowed()).isTrue();
        Decision second = guarded.tryAcquire("client", openAndFallback, 1).toCompletableFuture().join();
        assertThat(second.reason()).isEqualTo(Decision.Reason.FALLBACK);
        assertThat(second.allowed()).isFalse();
        assertThat(second.binding()).isEqualTo(fallback);
    }

    @Test
    void aStoreThatKnowsTheNumberOfInstancesSetsTheShare() {
        store.tellInstances(10);
        GuardedStore guarded = guard().build().guard(store);
        store.set(OutageStore.Mode.DOWN);
        Limit limit = PER_SECOND.withFailurePolicy(FailurePolicy.FALLBACK);
        int admitted = 0;
        for (int i = 0; i < 100; i++) {
            admitted += decide(guarded, limit, 1).allowed() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(10);
    }

    @Test
    void aFailureIsLoggedAtMostOncePerIntervalAndEveryOneCounted() throws InterruptedException {
        try (LogCapture log = new LogCapture(StoreGuard.class.getName())) {
            // A name of its own: the log of other tests' guards may still be on its way.
            GuardedStore guarded = guard().storeName("logged-once").build().guard(store);
            store.set(OutageStore.Mode.DOWN);
            for (int i = 0; i < 5; i++) {
                decide(guarded, PER_SECOND, 1);
            }
            assertThat(log.await(record -> record.getMessage().startsWith("store logged-once could not decide"), 1))
                    .hasSize(1);
            assertThat(count(StoreGuard.DECISIONS, "outcome", "unavailable-denied")).isEqualTo(5);
        }
    }

    @Test
    void theRateLimiterPathLogsAndCountsAStoreFailure() throws InterruptedException {
        // Issue 9.6: this path used to turn a failure into a decision with no log and no counter.
        try (LogCapture log = new LogCapture(StoreGuard.class.getName())) {
            // A closed local store fails every call; no other test's guard logs under its name.
            Store closed = LocalStore.builder().build();
            closed.close();
            RateLimiter found = RateLimiter.builder().limit(PER_SECOND).store(closed).build();
            assertThat(found.decide("client").reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(found.decide("client").reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
            assertThat(log.await(record -> record.getMessage().startsWith("store CaffeineStore could not decide"), 1))
                    .hasSize(1);

            store.set(OutageStore.Mode.DOWN);

            RateLimiter metered = RateLimiter.builder().limit(PER_SECOND).store(store)
                    .layer(guard().build()).failurePolicy(FailurePolicy.FAIL_OPEN).build();
            Decision open = metered.decide("client");
            assertThat(open.allowed()).isTrue();
            assertThat(count(StoreGuard.DECISIONS, "rule", "second", "outcome", "unavailable-allowed")).isEqualTo(1);
        }
    }

    @Test
    void admittedDecisionsNearTheLimitAreCounted() {
        GuardedStore guarded = guard().build().guard(store);
        for (int i = 0; i < 85; i++) {
            decide(guarded, PER_SECOND, 1);
        }
        // Remaining 20 and below: the 80th to the 85th decision.
        assertThat(count(StoreGuard.NEAR_LIMIT, "rule", "second")).isEqualTo(6);
        assertThat(registry.get(StoreGuard.STORE_LATENCY).tags("store", "test").timer().count()).isEqualTo(85);
    }
}
