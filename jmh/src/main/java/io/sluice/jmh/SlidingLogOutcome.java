package io.sluice.jmh;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * What every decision of a sliding-log benchmark does to a full log of {@code permits} entries,
 * one every {@link #STEP_MICROS} microseconds from {@link #FIRST_ENTRY_MICROS}
 * ({@link LocalSlidingLogBenchmark}, {@link GridSlidingLogBenchmark},
 * {@link HazelcastSlidingLogBenchmark}, {@link IgniteSlidingLogBenchmark}): the decision's cost
 * is compared between log lengths. The benchmarks that decide through a store on a virtual clock
 * share the log's limit ({@link #steadyLimits}), its filling ({@link #fill}), the clock's step
 * ({@link #nextMicros}) and the outcome's check ({@link #allowed}).
 */
public enum SlidingLogOutcome {
    /** The oldest entry has just expired: admitted, the log keeps its length, the new log written. */
    ADMISSION,
    /** The log is full and none of it has expired: denied, nothing written. */
    DENIAL;

    /** The time of a full log's first entry, in microseconds since the epoch. */
    static final long FIRST_ENTRY_MICROS = 1_764_000_000_000_000L;
    /** The time between a full log's entries. */
    static final long STEP_MICROS = 10;

    /**
     * A sliding log of {@code permits} whose period is {@code permits} steps: a log filled by
     * {@link #fill} stays full in its steady state, each admission a step after the one before
     * expiring the oldest entry.
     */
    static List<Limit> steadyLimits(int permits) {
        Duration period = Duration.ofNanos(STEP_MICROS * permits * 1_000);
        return List.of(Limit.of(Algorithms.SLIDING_LOG, permits, period).named("log"));
    }

    /**
     * Fills the log of the store's {@code key} with {@code permits} entries, one every
     * {@link #STEP_MICROS} from {@link #FIRST_ENTRY_MICROS}, moving the store's virtual clock
     * with {@code clock}, and checks that the full log denies; the clock is left at the newest
     * entry.
     */
    static void fill(Store store, String key, List<Limit> limits, int permits, LongConsumer clock) {
        long newest = FIRST_ENTRY_MICROS + STEP_MICROS * (permits - 1);
        for (int i = 0; i < permits; i++) {
            clock.accept(FIRST_ENTRY_MICROS + STEP_MICROS * i);
            if (!store.tryAcquireAndWait(key, limits, 1).allowed()) {
                throw new IllegalStateException("the log did not fill: " + i);
            }
        }
        clock.accept(newest + 1);
        if (store.tryAcquireAndWait(key, limits, 1).allowed()) {
            throw new IllegalStateException("a full log admitted");
        }
        clock.accept(newest);
    }

    /**
     * The time of the next decision on a log of {@code permits} that {@link #fill} filled, the
     * previous one at {@code nowMicros}: a step later for an admission, just after the newest
     * entry for a denial.
     */
    long nextMicros(long nowMicros, int permits) {
        return this == ADMISSION ? nowMicros + STEP_MICROS : FIRST_ENTRY_MICROS + STEP_MICROS * (permits - 1) + 1;
    }

    /** Whether the decision admitted; one that is not this outcome ends the benchmark. */
    boolean allowed(Decision decision) {
        if (decision.allowed() != (this == ADMISSION)) {
            throw new IllegalStateException("expected " + this + ": " + decision);
        }
        return decision.allowed();
    }
}
