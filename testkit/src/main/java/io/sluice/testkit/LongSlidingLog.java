package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.KeyState;
import io.sluice.algorithms.LogChunks;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One key's sliding log decided through a store one request at a time under a
 * {@link VirtualClock}, each decision checked against the whole log's ({@link KeyState} without
 * chunks): for the grid stores' tests of a long log kept as a bounded head and chunks
 * ({@link KeyState#tryAcquire(List, long, long, LogChunks)}), across a member's loss above all.
 * Not thread-safe.
 */
public final class LongSlidingLog {

    private final Store store;
    private final String key;
    private final Limit limit;
    private final VirtualClock clock;
    private final KeyState wholeLog = KeyState.empty();
    private final List<Long> admittedAt = new ArrayList<>();

    /** A log of {@code limit}, a sliding log's, on {@code key} of {@code store}, whose test clock is {@code clock}. */
    public LongSlidingLog(Store store, String key, Limit limit, VirtualClock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.key = Objects.requireNonNull(key, "key");
        this.limit = Objects.requireNonNull(limit, "limit");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Moves the clock {@code stepMicros} forward and decides a request of cost 1, {@code count}
     * times, each on the store's state as the one before left it: each must be the whole log's
     * decision.
     */
    public void decide(int count, long stepMicros) {
        for (int i = 0; i < count; i++) {
            clock.advanceMicros(stepMicros);
            long now = clock.nowMicros();
            Decision expected = wholeLog.tryAcquire(List.of(limit), now, 1);
            Decision decided = store.tryAcquire(key, List.of(limit), 1).toCompletableFuture().join();
            assertThat(decided).as("decision at %d us, %d admitted so far", now, admittedAt.size()).isEqualTo(expected);
            if (decided.allowed()) {
                admittedAt.add(now);
            }
        }
    }

    /** Checks that no period of the limit's (a window ending at an admission) admitted more than its permits. */
    public void assertNoPeriodAdmittedMoreThan() {
        int first = 0;
        for (int last = 0; last < admittedAt.size(); last++) {
            while (admittedAt.get(first) <= admittedAt.get(last) - limit.periodMicros()) {
                first++;
            }
            assertThat(last - first + 1).as("admitted in the period up to %d us", admittedAt.get(last))
                    .isLessThanOrEqualTo((int) limit.permits());
        }
    }

    /**
     * Whether this log's next decision at {@code nowMicros} on the key's state {@code encoded}
     * (as the grid store holds it) needs a chunk read back: a decision the store then makes as
     * the whole log does shows that it read the chunk. Changes nothing stored.
     */
    public boolean needsAChunk(byte[] encoded, long nowMicros) {
        NoChunks none = new NoChunks();
        return KeyState.decode(encoded).tryAcquire(List.of(limit), nowMicros, 1, none) == null && none.needed;
    }

    /** The chunks of a caller that sent none: notes whether one was needed. */
    private static final class NoChunks implements LogChunks {

        private boolean needed;

        @Override
        public long @Nullable [] chunk(String limitName, long birth, long index) {
            return null;
        }

        @Override
        public void need(String limitName, long birth, long index) {
            needed = true;
        }

        @Override
        public void flush(String limitName, long birth, long index, long[] entries) {
            // Whether a chunk is needed is all this asks.
        }
    }
}
