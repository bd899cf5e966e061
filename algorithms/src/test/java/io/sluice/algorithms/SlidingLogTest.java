package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Probing.NewState;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sliding log's state of format 2 (running totals), format 1 read as it was written, and the log changed in place. */
class SlidingLogTest {

    private static final Probing LOG = (Probing) Algorithms.SLIDING_LOG;

    private static final Limit FIVE_PER_SECOND = Limit.of(Algorithms.SLIDING_LOG, 5, Duration.ofSeconds(1));

    @Test
    void anAdmissionKeepsTheLiveEntriesWithRunningTotalsAfterTheExpiredOnesBase() {
        // Entries at 100 (cost 1), 200 (cost 2), 1_300 (cost 1): at 1_250_000 the first two expired.
        long[] state = {SlidingLog.TAG, 0, 100, 1, 200, 3, 1_300, 4};
        Transition next = LOG.transition(state, 1_000_250, FIVE_PER_SECOND, 2);
        assertThat(next.allowed()).isTrue();
        assertThat(next.remaining()).isEqualTo(2);
        assertThat(next.state()).containsExactly(SlidingLog.TAG, 3, 1_300, 4, 1_000_250, 6);
        assertThat(state).containsExactly(SlidingLog.TAG, 0, 100, 1, 200, 3, 1_300, 4);
    }

    @Test
    void aDenialFindsTheEntryWhoseExpiryFreesEnoughAndReturnsTheStateItGot() {
        long[] state = {SlidingLog.TAG, 7, 100, 8, 200, 10, 300, 12};
        // Used 5 of 5; a cost of 3 needs the first two entries (costs 1 and 2) gone: at 200 + 1 s.
        Transition denied = LOG.transition(state, 400, FIVE_PER_SECOND, 3);
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
            Transition fromOne = LOG.transition(formatOne, 400, FIVE_PER_SECOND, cost);
            Transition fromTwo = LOG.transition(formatTwo, 400, FIVE_PER_SECOND, cost);
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
        Transition next = LOG.transition(state, 2_000_000, FIVE_PER_SECOND, 1);
        assertThat(next.state()).containsExactly(SlidingLog.TAG, 0, 2_000_000, 1);
    }

    @Test
    void anAdmissionInPlaceDropsExpiredEntriesByMovingTheHeadAndAppendsInTheSameArray() {
        long[] log = inPlace(FIVE_PER_SECOND, 100, 200, 300);
        assertThat(log).startsWith(SlidingLog.TAG_IN_PLACE, SlidingLog.FIRST, SlidingLog.FIRST + 6, 0, 100, 1, 200, 2);
        // At 1_000_250 the entries at 100 and 200 have expired.
        Transition next = LOG.transition(log, 1_000_250, FIVE_PER_SECOND, 1, NewState.IN_PLACE);
        assertThat(next.state()).isSameAs(log);
        assertThat(log).startsWith(SlidingLog.TAG_IN_PLACE, SlidingLog.FIRST + 4, SlidingLog.FIRST + 8);
        assertThat(SlidingLogInPlaceProperties.asFormat2(log)).containsExactly(SlidingLog.TAG, 2, 300, 3, 1_000_250, 4);
        assertThat(next.remaining()).isEqualTo(3);
    }

    @Test
    void aFullArrayIsCompactedInPlaceWhenItsLiveEntriesFillAtMostHalfOfIt() {
        // Room for 4 entries (MIN_ROOM longs), full; at 1_000_350 only the entry at 400 is live.
        long[] log = inPlace(FIVE_PER_SECOND, 100, 200, 300, 400);
        assertThat(log).hasSize(SlidingLog.FIRST + SlidingLog.MIN_ROOM);
        Transition next = LOG.transition(log, 1_000_350, FIVE_PER_SECOND, 1, NewState.IN_PLACE);
        assertThat(next.state()).isSameAs(log);
        assertThat(log).startsWith(SlidingLog.TAG_IN_PLACE, SlidingLog.FIRST, SlidingLog.FIRST + 4, 3, 400, 4,
                1_000_350, 5);
    }

    @Test
    void aFullArrayGrowsToTwiceItsLiveEntriesWhenTheyFillMoreThanHalfOfIt() {
        Limit ten = Limit.of(Algorithms.SLIDING_LOG, 10, Duration.ofSeconds(1));
        long[] log = inPlace(ten, 100, 200, 300, 400);
        Transition next = LOG.transition(log, 500, ten, 1, NewState.IN_PLACE);
        assertThat(next.state()).isNotSameAs(log).hasSize(SlidingLog.FIRST + 2 * 10);
        assertThat(SlidingLogInPlaceProperties.asFormat2(next.state()))
                .containsExactly(SlidingLog.TAG, 0, 100, 1, 200, 2, 300, 3, 400, 4, 500, 5);
    }

    @Test
    void aFullArrayOfFewLiveEntriesShrinks() {
        Limit many = Limit.of(Algorithms.SLIDING_LOG, 100, Duration.ofSeconds(1));
        long[] times = new long[40];
        for (int i = 0; i < times.length; i++) {
            times[i] = 100 + i;
        }
        long[] log = inPlace(many, times);
        // Filled to the end, then all but the newest expire: the next admission moves one entry.
        while (log[SlidingLog.END] < log.length) {
            log = LOG.transition(log, 200 + log[SlidingLog.END], many, 1, NewState.IN_PLACE)
                    .state();
        }
        long[] full = SlidingLogInPlaceProperties.asFormat2(log);
        long newest = full[full.length - 2];
        long[] shrunk = LOG.transition(log, newest + 999_999, many, 1, NewState.IN_PLACE).state();
        assertThat(shrunk).hasSize(SlidingLog.FIRST + SlidingLog.MIN_ROOM);
        assertThat(SlidingLogInPlaceProperties.asFormat2(shrunk)).hasSize(6).endsWith(newest + 999_999, full[full.length - 1] + 1);
    }

    @Test
    void aLargeBaseIsRebasedInPlace() {
        long base = SlidingLog.REBASE_ABOVE + 10;
        long[] log = {SlidingLog.TAG_IN_PLACE, 6, 8, 0, 50, base - 1, 100, base, 0, 0, 0, 0};
        Transition next = LOG.transition(log, 1_000_075, FIVE_PER_SECOND, 1, NewState.IN_PLACE);
        assertThat(next.state()).isSameAs(log);
        assertThat(SlidingLogInPlaceProperties.asFormat2(log)).containsExactly(SlidingLog.TAG, 0, 100, 1, 1_000_075, 2);
    }

    @Test
    void aKeyStateWritesAnInPlaceLogAsFormat2() {
        Limit many = Limit.of(Algorithms.SLIDING_LOG, 100, Duration.ofSeconds(1)).named("log");
        KeyState state = KeyState.empty();
        for (long t = 1; t <= 20; t++) {
            state.tryAcquire(List.of(many), t, 1);
        }
        // Ten expired: the log of format 2 holds the base 10 and the entries at 11 to 20.
        state.tryAcquire(List.of(many), 1_000_010, 1);
        byte[] bytes = state.encode();
        long[] expected = new long[2 + 2 * 11];
        expected[0] = SlidingLog.TAG;
        expected[1] = 10;
        for (int i = 0; i < 10; i++) {
            expected[2 + 2 * i] = 11 + i;
            expected[3 + 2 * i] = 11 + i;
        }
        expected[22] = 1_000_010;
        expected[23] = 21;
        long[] written = new long[expected.length];
        ByteBuffer.wrap(bytes, bytes.length - Long.BYTES * written.length, Long.BYTES * written.length)
                .asLongBuffer().get(written);
        assertThat(written).containsExactly(expected);
        assertThat(KeyState.decode(bytes).encode()).isEqualTo(bytes);
    }

    @Test
    void anAdmissionOnAnEncodedLogIsWrittenAsTheLogOfFormat2ItLeaves() {
        Limit ten = Limit.of(Algorithms.SLIDING_LOG, 10, Duration.ofSeconds(1)).named("log");
        // Entries at 100 (cost 1), 200 (2), 300 (1), 400 (1), 500 (1): at 1_000_150 the first expired.
        long[] log = {SlidingLog.TAG, 7, 100, 8, 200, 10, 300, 11, 400, 12, 500, 13};
        KeyState decoded = KeyState.decode(encodedLog("log", 5_000_000, log));
        assertThat(decoded.tryAcquire(List.of(ten), 1_000_150, 2).remaining()).isEqualTo(3);
        assertThat(fixedLongs(decoded.encode(), 12))
                .containsExactly(SlidingLog.TAG, 8, 200, 10, 300, 11, 400, 12, 500, 13, 1_000_150, 15);
        // A second admission at the same microsecond, on the same state: merged into the newest entry.
        assertThat(decoded.tryAcquire(List.of(ten), 1_000_150, 1).remaining()).isEqualTo(2);
        assertThat(fixedLongs(decoded.encode(), 12))
                .containsExactly(SlidingLog.TAG, 8, 200, 10, 300, 11, 400, 12, 500, 13, 1_000_150, 16);
    }

    @Test
    void anAdmissionOnAnEncodedLogOfALargeBaseIsWrittenRebased() {
        long base = SlidingLog.REBASE_ABOVE + 10;
        long[] log = {SlidingLog.TAG, base - 2, 100, base - 1, 200, base, 300, base + 1, 400, base + 2};
        KeyState decoded = KeyState.decode(encodedLog("log", 5_000_000, log));
        assertThat(decoded.tryAcquire(List.of(FIVE_PER_SECOND.named("log")), 1_000_150, 1).allowed()).isTrue();
        assertThat(fixedLongs(decoded.encode(), 10)).containsExactly(SlidingLog.TAG, 0, 200, 1, 300, 2, 400, 3,
                1_000_150, 4);
    }

    @Test
    void anAdmissionThatLeavesAShortLogWritesItAsVariableLengthIntegersAsBefore() {
        List<Limit> five = List.of(FIVE_PER_SECOND.named("log"));
        KeyState kept = KeyState.empty();
        for (long t : new long[] {100, 200, 300, 400}) {
            kept.tryAcquire(five, t, 1);
        }
        KeyState decoded = KeyState.decode(kept.encode());
        // At 1_000_350 only the entry at 400 is live: a log of 6 longs, written as varints.
        assertThat(decoded.tryAcquire(five, 1_000_350, 1).allowed()).isTrue();
        assertThat(kept.tryAcquire(five, 1_000_350, 1).allowed()).isTrue();
        byte[] written = decoded.encode();
        assertThat(written).isEqualTo(kept.encode()).hasSizeLessThan(6 * Long.BYTES);
    }

    /** A {@link KeyState} encoding (format 2) of one limit whose state is {@code log}, in fixed-width longs. */
    private static byte[] encodedLog(String name, long expiresAtMicros, long[] log) {
        ByteBuffer out = ByteBuffer.allocate(64 + Long.BYTES * log.length);
        out.put(KeyState.FORMAT_VERSION).put((byte) 1).put((byte) name.length()).put(name.getBytes());
        long zigZag = expiresAtMicros << 1;
        while ((zigZag & ~0x7FL) != 0) {
            out.put((byte) ((zigZag & 0x7F) | 0x80));
            zigZag >>>= 7;
        }
        out.put((byte) zigZag).put((byte) (log.length << 1 | 1));
        out.asLongBuffer().put(log);
        return java.util.Arrays.copyOf(out.array(), out.position() + Long.BYTES * log.length);
    }

    /** The last {@code count} longs of an encoding: its last state's, when fixed-width. */
    private static long[] fixedLongs(byte[] bytes, int count) {
        long[] longs = new long[count];
        ByteBuffer.wrap(bytes, bytes.length - Long.BYTES * count, Long.BYTES * count).asLongBuffer().get(longs);
        return longs;
    }

    /** An in-place log of one admission of cost 1 at each of {@code times}. */
    private static long[] inPlace(Limit limit, long... times) {
        long[] log = null;
        for (long time : times) {
            Transition admitted = LOG.transition(log, time, limit, 1, NewState.IN_PLACE);
            assertThat(admitted.allowed()).isTrue();
            log = admitted.state();
        }
        return log;
    }
}
