package io.sluice.jmh;

import java.math.BigInteger;
import java.util.Random;
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

    /** The key {@link #checkAdmissions} uses: not among any pattern's keys. */
    private static final String CHECKED_KEY = "sluice-jmh-admission-check";
    /** The most calls {@link #checkAdmissions} makes. */
    private static final long MOST_CHECKED_CALLS = 1_000;

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
            keyArray = keys(keys, limiter);
            checkAdmissions(limiter, limits);
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

    /**
     * Fails the trial when the limiter admits more than the shape's first limit allows on a key
     * of its own (never measured): a limiter that admits everything (a
     * floor whose state expired at once did) measures a cheaper path than its peers. Asks
     * three bursts' worth in a row, so even a fixed window (two bursts across a boundary)
     * must deny some. Skipped when that would take more than a thousand
     * calls ({@link LimitShape#HIGH}, which admits almost everything anyway). Not timed.
     */
    static void checkAdmissions(Limiter limiter, LimitShape shape) {
        LimitShape.Spec limit = shape.specs().get(0);
        long calls = 3 * limit.permits();
        if (calls > MOST_CHECKED_CALLS) {
            return;
        }
        long started = System.nanoTime();
        long admitted = 0;
        for (long i = 0; i < calls; i++) {
            if (limiter.tryAcquire(CHECKED_KEY, 1)) {
                admitted++;
            }
        }
        long elapsed = System.nanoTime() - started;
        // The burst, one more for each period begun (a window's boundary, or refills).
        long allowed = limit.permits() * (2 + elapsed / limit.period().toNanos());
        if (admitted > allowed) {
            throw new IllegalStateException(limiter.getClass().getSimpleName() + " admitted " + admitted + " of "
                    + calls + " requests in " + elapsed / 1_000_000 + " ms on one key, where " + limit.name()
                    + " allows at most " + allowed + ": it does not enforce the limit it is measured with");
        }
    }

    /** Creates the chosen implementation's limiter, starting the servers it needs first. */
    protected abstract Limiter createLimiter(LimitShape shape) throws Exception;

    /**
     * The keys of the pattern; a store may narrow them (to keys another member owns, say).
     * Called after {@link #createLimiter}, so servers are up.
     */
    protected String[] keys(KeyPattern pattern, Limiter limiter) {
        return pattern.keys();
    }

    /** Stops what {@link #createLimiter} started (if it started), after the limiter is closed. */
    protected void stopServers() throws Exception {
    }

    /**
     * One benchmark thread's walk over the keys: from a random starting point, by a random stride
     * coprime to the number of keys, so each thread visits every key once per pass in an order of
     * its own, as independent clients do, and no key is built on the hot path. Why not every
     * thread through the array one step at a time (as before 2026-12-03): the first pass creates
     * the entries in the array's order, so such a walk also goes through memory in allocation
     * order, and a thread that caught up with another rode behind it on the cache lines it had
     * just brought in. The 8-thread random-key figures then measured how well threads ride in a
     * pack, not decisions (benchmarks-history.md, "Local store, random keys at 8 threads").
     */
    @State(Scope.Thread)
    public static class ThreadKeys {

        private int next;
        /** Negative until the first key, when the number of keys is known. */
        private int stride = -1;

        String next(String[] keys) {
            if (stride < 0) {
                start(keys.length, ThreadLocalRandom.current());
            }
            String key = keys[next];
            next += stride;
            if (next >= keys.length) {
                next -= keys.length;
            }
            return key;
        }

        /** Draws this walk's start and stride over {@code count} keys. */
        void start(int count, Random random) {
            if (count < 1) {
                throw new IllegalArgumentException("a walk needs at least one key: " + count);
            }
            next = random.nextInt(count);
            stride = count == 1 ? 0 : coprimeStride(count, random);
        }

        private static int coprimeStride(int count, Random random) {
            int stride;
            do {
                stride = 1 + random.nextInt(count - 1);
            } while (BigInteger.valueOf(stride).gcd(BigInteger.valueOf(count)).intValue() != 1);
            return stride;
        }
    }
}
