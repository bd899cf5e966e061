package io.sluice.jmh;

import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.core.StoreGuard;
import io.sluice.store.local.LocalStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The guard's fast answers, each against the in-process local store (the cheapest store
 * there is) in the same run: a denied client asking again, answered by the block cache (target:
 * under 200 ns at p50), and a decision while the store's circuit breaker is open (target:
 * microseconds, not a timeout). The guard calls a store that decides in process directly, so
 * these two run on the local store declared out of process ({@link OutOfProcessStandIn}), as
 * they would on a shared store. Run it as docs/operations.md says.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GuardBenchmark {

    /** Where a repeated denial is answered. */
    public enum Path {
        /** The guard's block cache, in front of a store out of process. */
        BLOCK_CACHE_HIT,
        /** The local store through the guard, which calls a store that decides in process directly. */
        LOCAL_STORE,
        /** The local store called directly, without the guard: what the guard's chain costs is the difference. */
        LOCAL_STORE_UNGUARDED,
        /** A failed store out of process behind an open breaker: the failure policy (fail-closed) answers without a call. */
        BREAKER_OPEN
    }

    /** The path measured. */
    @Param
    public Path path;

    private static final Limit DAILY = Limit.of(Algorithms.TOKEN_BUCKET, 1, Duration.ofDays(1));

    private RateLimiter limiter;
    private Store store;
    private List<Limit> limits;

    /**
     * A limiter whose only permit of the day is spent, so that every decision is a denial; for
     * {@link Path#BREAKER_OPEN}, on a closed store, whose breaker stays open for the run.
     */
    @Setup
    public void denyTheClient() {
        StoreGuard.Builder guard = StoreGuard.custom();
        store = LocalStore.builder().build();
        Store guarded = path == Path.BLOCK_CACHE_HIT || path == Path.BREAKER_OPEN ? new OutOfProcessStandIn(store) : store;
        if (path == Path.BREAKER_OPEN) {
            guard.circuitBreaker(CircuitBreakerConfig.custom().waitDurationInOpenState(Duration.ofHours(1)).build());
            store.close();
        }
        limiter = RateLimiter.builder().limit(DAILY).store(guarded).layer(guard.build()).build();
        limits = limiter.limits();
        for (int i = 0; i < 100; i++) {
            limiter.decide("client");
        }
        if (limiter.decide("client").allowed()) {
            throw new IllegalStateException("the client should be denied");
        }
    }

    /** One repeated denial. */
    @Benchmark
    public Decision deny() {
        if (path == Path.LOCAL_STORE_UNGUARDED) {
            return store.tryAcquire("client", limits, 1).toCompletableFuture().join();
        }
        return limiter.decide("client");
    }
}
