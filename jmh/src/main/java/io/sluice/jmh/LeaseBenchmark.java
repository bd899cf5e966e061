package io.sluice.jmh;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.core.LeasePolicy;
import io.sluice.core.StoreGuard;
import io.sluice.store.local.LocalStore;
import java.time.Duration;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * An admitted decision served from a lease (local quota leasing: no store call), against the
 * same decision asked of the in-process local store through the guard without leasing, in the
 * same run. The limit is so large that a busy key's lease (10% of it) is refilled once in
 * 10^8 decisions, so nearly every sample is a lease hit. Target: under 1 us at p50.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class LeaseBenchmark {

    /** Where an admitted decision is made. */
    public enum Path {
        /** The guard's lease of the key. */
        LEASE_HIT,
        /** The local store, through the guard without leasing. */
        LOCAL_STORE
    }

    /** The path measured. */
    @Param
    public Path path;

    /**
     * A fixed window: its batches follow the key's rate over what is left of the day, up to 10% of
     * it. (A bucket this far from drained is leased only for what the key asks before the bucket
     * would refill it, which a day's rate says is little.)
     */
    private static final Limit HUGE = Limit.of(Algorithms.FIXED_WINDOW, 1_000_000_000, Duration.ofDays(1));

    private RateLimiter limiter;
    private Store store;

    /** A limiter whose client is busy enough to be leased. */
    @Setup
    public void leaseTheClient() {
        StoreGuard.Builder guard = StoreGuard.custom();
        if (path == Path.LEASE_HIT) {
            guard.leasing(LeasePolicy.ofDefaults());
        }
        store = LocalStore.builder().build();
        limiter = RateLimiter.builder().limit(HUGE).store(store).layer(guard.build()).build();
        for (int i = 0; i < 1_000; i++) {
            limiter.decide("client");
        }
    }

    /** One admitted decision. */
    @Benchmark
    public Decision admit() {
        return limiter.decide("client");
    }

    @TearDown
    public void close() {
        store.close();
    }
}
