package io.sluice.jmh;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * One decision, measured the same way for every implementation of every store: a store's
 * benchmark extends this, names its implementations in an {@code impl} {@code @Param} and
 * creates the {@link Limiter} for the chosen one (starting its servers).
 *
 * <p>The annotations are the defaults of a bare JMH run; {@link BenchmarkProfiles} sets
 * modes, threads and iterations for the quick and full profiles.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public abstract class DecisionBenchmark {

    /** The limits each request is checked against. */
    @Param
    public LimitShape limits;

    /** One hot key, or 100,000 keys in random order. */
    @Param
    public KeyPattern keys;

    private Limiter limiter;
    private String[] keyArray;

    /** Starts the servers this store needs and the limiter of the chosen implementation. */
    @Setup(Level.Trial)
    public final void startLimiter() throws Exception {
        try {
            limiter = createLimiter(limits);
            keyArray = keys(keys);
        } catch (Exception | Error e) {
            // JMH skips the tear-down of a failed set-up: stop the servers here, or they outlive the run.
            if (limiter != null) {
                limiter.close();
            }
            stopServers();
            throw e;
        }
    }

    /** Stops the limiter, then the servers. */
    @TearDown(Level.Trial)
    public final void stopLimiter() throws Exception {
        try {
            limiter.close();
        } finally {
            stopServers();
        }
    }

    /** One decision for the next key of this thread. */
    @Benchmark
    public boolean decide(ThreadKeys threadKeys) {
        return limiter.tryAcquire(threadKeys.next(keyArray), 1);
    }

    /** Creates the chosen implementation's limiter, starting the servers it needs first. */
    protected abstract Limiter createLimiter(LimitShape shape) throws Exception;

    /**
     * The keys of the pattern; a store may narrow them (to keys another member owns, say).
     * Called after {@link #createLimiter}, so servers are up.
     */
    protected String[] keys(KeyPattern pattern) {
        return pattern.keys();
    }

    /** Stops what {@link #createLimiter} started (if it started), after the limiter is closed. */
    protected void stopServers() throws Exception {
    }

    /**
     * One benchmark thread's walk over the keys, from a random starting point through the
     * shuffled array, so threads do not move in lock step and no key is built on the hot path.
     */
    @State(Scope.Thread)
    public static class ThreadKeys {

        private int next;

        /** Picks this thread's starting point. */
        @Setup(Level.Trial)
        public void pickStart() {
            next = ThreadLocalRandom.current().nextInt(KeyPattern.RANDOM_KEYS);
        }

        String next(String[] keys) {
            int index = next < keys.length ? next : 0;
            next = index + 1;
            return keys[index];
        }
    }
}
