package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The sliding log's state of format 2 (running totals), and format 1 read as it was written. */
class SlidingLogTest {

    private static final Limit FIVE_PER_SECOND = Limit.of(Algorithms.SLIDING_LOG, 5, Duration.ofSeconds(1));

    @Test
    void anAdmissionKeepsTheLiveEntriesWithRunningTotalsAfterTheExpiredOnesBase() {
        // Entries at 100 (cost 1), 200 (cost 2), 1_300 (cost 1): at 1_250_000 the first two expired.
        long[] state = {SlidingLog.TAG, 0, 100, 1, 200, 3, 1_300, 4};
        Transition next = Algorithms.SLIDING_LOG.transition(state, 1_000_250, FIVE_PER_SECOND, 2);
        assertThat(next.allowed()).isTrue();
        assertThat(next.remaining()).isEqualTo(2);
        assertThat(next.state()).containsExactly(SlidingLog.TAG, 3, 1_300, 4, 1_000_250, 6);
        assertThat(state).containsExactly(SlidingLog.TAG, 0, 100, 1, 200, 3, 1_300, 4);
    }

    @Test
    void aDenialFindsTheEntryWhoseExpiryFreesEnoughAndReturnsTheStateItGot() {
        long[] state = {SlidingLog.TAG, 7, 100, 8, 200, 10, 300, 12};
        // Used 5 of 5; a cost of 3 needs the first two entries (costs 1 and 2) gone: at 200 + 1 s.
        Transition denied = Algorithms.SLIDING_LOG.transition(state, 400, FIVE_PER_SECOND, 3);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterMicros()).isEqualTo(200 + 1_000_000 - 400);
        assertThat(denied.resetAfterMicros()).isEqualTo(300 + 1_000_000 - 400);
        assertThat(denied.state()).isSameAs(state);
    }

    @Test
    void aStateOfFormatOneIsReadAsItWasWritten() {
        long[] formatOne = {SlidingLog.TAG_V1, 100, 1, 200, 2, 300, 2};
        long[] formatTwo = {SlidingLog.TAG, 0, 100, 1, 200, 3, 300, 5};
        for (long cost : new long[] {1, 3, 6}) {
            Transition fromOne = Algorithms.SLIDING_LOG.transition(formatOne, 400, FIVE_PER_SECOND, cost);
            Transition fromTwo = Algorithms.SLIDING_LOG.transition(formatTwo, 400, FIVE_PER_SECOND, cost);
            assertThat(fromOne.allowed()).isEqualTo(fromTwo.allowed());
            assertThat(fromOne.remaining()).isEqualTo(fromTwo.remaining());
            assertThat(fromOne.retryAfterMicros()).isEqualTo(fromTwo.retryAfterMicros());
            assertThat(fromOne.resetAfterMicros()).isEqualTo(fromTwo.resetAfterMicros());
        }
    }

    @Test
    void aLargeBaseIsRebasedToZero() {
        long base = SlidingLog.REBASE_ABOVE + 10;
        long[] state = {SlidingLog.TAG, base - 1, 100, base};
        Transition next = Algorithms.SLIDING_LOG.transition(state, 2_000_000, FIVE_PER_SECOND, 1);
        assertThat(next.state()).containsExactly(SlidingLog.TAG, 0, 2_000_000, 1);
    }
}
