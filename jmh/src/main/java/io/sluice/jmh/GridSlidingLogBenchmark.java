package io.sluice.jmh;

import static io.sluice.jmh.SlidingLogOutcome.FIRST_ENTRY_MICROS;
import static io.sluice.jmh.SlidingLogOutcome.STEP_MICROS;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.algorithms.grid.GridOperation;
import io.sluice.algorithms.grid.GridRequest;
import io.sluice.api.Limit;
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
 * What a Hazelcast or Ignite member does for one sliding-log decision on a hot key whose log
 * is full: reads the request and the key's stored {@link KeyState} bytes, decides, and (for an
 * admission) encodes the new state. The grid's own work (the network, copying the value) is
 * not included. A denial's time must not grow with the log's length ({@code permits} entries).
 * It uses only what the grid stores' entry processors call, so it also runs against an older
 * {@code sluice-algorithms} on the class path, for a before-and-after in one command each.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class GridSlidingLogBenchmark {

    /** The limit's permits: the log's entries when it is full. */
    @Param({"1000", "10000"})
    public int permits;

    /** What the decision does. */
    @Param
    public SlidingLogOutcome outcome;

    private byte[] stored;
    private GridOperation operation;
    private long nowMicros;

    /** A full log of {@code permits} entries, one every 10 us, and a request at a time that makes {@link #outcome}. */
    @Setup
    public void fillTheLog() {
        Duration period = Duration.ofSeconds(1);
        List<Limit> limits = List.of(Limit.of(Algorithms.SLIDING_LOG, permits, period).named("log"));
        KeyState state = KeyState.empty();
        for (int i = 0; i < permits; i++) {
            if (!state.tryAcquire(limits, FIRST_ENTRY_MICROS + STEP_MICROS * i, 1).allowed()) {
                throw new IllegalStateException("the log did not fill: " + i);
            }
        }
        stored = state.encode();
        nowMicros = outcome == SlidingLogOutcome.DENIAL ? FIRST_ENTRY_MICROS + STEP_MICROS * permits
                : FIRST_ENTRY_MICROS + period.toNanos() / 1_000;
        operation = GridOperation.decisionOnWire(GridRequest.encode(limits, 1, nowMicros));
        GridRequest.Outcome check = decide();
        if (check.write() != (outcome == SlidingLogOutcome.ADMISSION)) {
            throw new IllegalStateException("expected " + outcome + ", got write=" + check.write());
        }
    }

    /** The member's step: the request read, the decision on the stored bytes, the new bytes when admitted. */
    @Benchmark
    public GridRequest.Outcome decide() {
        return operation.run(stored, this::memberClock);
    }

    private long memberClock() {
        return nowMicros;
    }
}
