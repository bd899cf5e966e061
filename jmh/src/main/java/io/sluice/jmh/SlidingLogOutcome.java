package io.sluice.jmh;

/**
 * What every decision of a sliding-log benchmark does to a full log of {@code permits} entries,
 * one every {@link #STEP_MICROS} microseconds from {@link #FIRST_ENTRY_MICROS}
 * ({@link LocalSlidingLogBenchmark}, {@link GridSlidingLogBenchmark},
 * {@link HazelcastSlidingLogBenchmark}): the decision's cost is compared between log lengths.
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
}
