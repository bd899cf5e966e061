package io.sluice.jmh;

import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import java.util.List;
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
 * One sliding-log decision in the local store on a hot key whose log holds {@code permits}
 * entries (issue 10: a decision's cost must not grow with the log). The store runs on a
 * virtual clock, so that every decision of a run is the same {@link SlidingLogOutcome}: an
 * {@code ADMISSION} of a log in its steady state (each decision 10 us after the one before,
 * the period {@code permits} times that, so each admission expires the oldest entry and the
 * log keeps its length), or a {@code DENIAL} of a full log (the clock held just after its
 * newest entry). Compare the {@code permits} values of one run; {@code -prof gc} gives the
 * bytes per decision. It uses only the store's public API, so it also runs against an older
 * Sluice on the class path, for a before-and-after.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class LocalSlidingLogBenchmark {

    private static final String KEY = "hot-key";

    /** The limit's permits: the log's entries. */
    @Param({"100", "1000", "10000"})
    public int permits;

    /** What every decision does. */
    @Param
    public SlidingLogOutcome outcome;

    /** The store's virtual clock, in microseconds since the epoch; read by the store on this thread only. */
    private long nowMicros;
    private Store store;
    private List<Limit> limits;

    /** A store on the virtual clock and a log of {@code permits} entries, one every 10 us. */
    @Setup(Level.Trial)
    public void fillTheLog() {
        store = LocalStore.builder().clockForTesting(() -> nowMicros).build();
        limits = SlidingLogOutcome.steadyLimits(permits);
        SlidingLogOutcome.fill(store, KEY, limits, permits, micros -> nowMicros = micros);
    }

    /** Closes the store. */
    @TearDown(Level.Trial)
    public void close() throws Exception {
        store.close();
    }

    /** One decision; the clock moves 10 us first for an admission, not at all for a denial. */
    @Benchmark
    public boolean decide() {
        nowMicros = outcome.nextMicros(nowMicros, permits);
        return outcome.allowed(store.tryAcquireAndWait(KEY, limits, 1));
    }
}
