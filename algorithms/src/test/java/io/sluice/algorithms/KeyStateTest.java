package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyStateTest {

    private static final long T0 = 1_764_000_000_000_000L;

    private final Limit perSecond = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).named("second");
    private final Limit perMinute = Limit.of(Algorithms.FIXED_WINDOW, 15, Duration.ofMinutes(1)).named("minute");

    @Test
    void aDenialIsReadWithoutChargingAndRejectsWhatTryAcquireRejects() {
        KeyState state = KeyState.empty();
        assertThat(state.denial(List.of(perSecond), T0, 10)).isNull();
        state.tryAcquire(List.of(perSecond), T0, 10);
        Decision denial = state.denial(List.of(perSecond, perMinute), T0, 1);
        assertThat(denial).isEqualTo(state.tryAcquire(List.of(perSecond, perMinute), T0, 1));
        assertThat(denial.retryAfter()).contains(Duration.ofMillis(100));
        assertThat(state.denial(List.of(perMinute), T0, 1)).isNull();
        assertThatThrownBy(() -> state.denial(List.of(), T0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("limit");
        assertThatThrownBy(() -> state.denial(List.of(perSecond), T0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
    }

    @Test
    void aDenialReadBindsTheLimitACombinedDecisionBinds() {
        KeyState state = KeyState.empty();
        state.tryAcquire(List.of(perSecond), T0, 10);
        Limit tiny = Limit.of(Algorithms.FIXED_WINDOW, 5, Duration.ofMinutes(1)).named("tiny");

        // The second limit can never take 6, which binds over the first's wait.
        Decision denial = state.denial(List.of(perSecond, tiny), T0, 6);
        assertThat(denial.reason()).isEqualTo(Decision.Reason.COST_EXCEEDS_CAPACITY);
        assertThat(denial.binding()).isEqualTo(tiny);
        assertThat(denial).isEqualTo(state.tryAcquire(List.of(perSecond, tiny), T0, 6));
        // Both wait: the longer wait binds.
        state.tryAcquire(List.of(tiny), T0, 5);
        Decision longer = state.denial(List.of(perSecond, tiny), T0, 1);
        assertThat(longer.binding()).isEqualTo(tiny);
        assertThat(longer).isEqualTo(state.tryAcquire(List.of(perSecond, tiny), T0, 1));
    }

    /**
     * A limit is looked for first at its place in the request: a request that lists a key's
     * limits in another order than they were stored, or names them with other String objects
     * (a state decoded from bytes), finds each limit's own state all the same.
     */
    @Test
    void limitsListedInAnotherOrderOrByEqualNamesDecideOnTheirOwnStates() {
        Limit perDay = Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofDays(1)).named(new String("day"));
        KeyState state = KeyState.empty();
        state.tryAcquire(List.of(perSecond, perMinute, perDay), T0, 10);
        List<Limit> reversed = List.of(perDay, perMinute, Limit.of(Algorithms.TOKEN_BUCKET, 10,
                Duration.ofSeconds(1)).named(new String("second")));

        Decision denial = state.denial(reversed, T0, 1);
        assertThat(denial).isNotNull();
        assertThat(denial.binding().name()).isEqualTo("second");
        assertThat(denial.retryAfter()).contains(Duration.ofMillis(100));
        assertThat(state.denial(List.of(perMinute, perDay), T0, 5)).isNull();
        assertThat(state.denial(List.of(perMinute, perDay), T0, 6).binding()).isEqualTo(perMinute);

        KeyState decoded = KeyState.decode(state.encode());
        Decision admitted = decoded.tryAcquire(reversed, T0 + 500_000, 5);
        assertThat(admitted.allowed()).isTrue();
        assertThat(admitted.binding()).isEqualTo(perMinute);
        assertThat(admitted.remaining()).isZero();
        assertThat(decoded.toString()).startsWith("KeyState[second until ");
        assertThat(decoded.denial(List.of(perDay, perSecond), T0 + 500_000, 1).binding()).isEqualTo(perSecond);
        assertThat(decoded.denial(List.of(perDay), T0 + 500_000, 986)).isNotNull();
        assertThat(decoded.denial(List.of(perDay), T0 + 500_000, 985)).isNull();
    }

    @Test
    void chargesAllLimitsOnlyWhenAllAdmit() {
        KeyState state = KeyState.empty();
        List<Limit> limits = List.of(perSecond, perMinute);
        Decision first = state.tryAcquire(limits, T0, 10);
        assertThat(first.allowed()).isTrue();
        assertThat(first.binding()).isEqualTo(perSecond);
        assertThat(first.remaining()).isZero();

        Decision denied = state.tryAcquire(limits, T0 + 200_000, 3);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.binding()).isEqualTo(perSecond);
        assertThat(denied.retryAfter()).contains(Duration.ofMillis(100));
        // The minute limit admitted 3 but was not charged: 5 still fit once the second refills.
        Decision bothDeny = state.tryAcquire(limits, T0 + 500_000, 6);
        assertThat(bothDeny.binding()).isEqualTo(perMinute);
        Decision later = state.tryAcquire(limits, T0 + 1_000_000, 5);
        assertThat(later.allowed()).isTrue();
        assertThat(later.binding()).isEqualTo(perMinute);
        assertThat(later.remaining()).isZero();
    }

    @Test
    void anExpiredStateIsChargedAgainInItsOwnSlotAndDecidedAsNoState() {
        Limit perSecondGcra = Limit.of(Algorithms.GCRA, 5, Duration.ofSeconds(1)).named("gcra");
        List<Limit> limits = List.of(perSecond, perMinute, perSecondGcra);
        KeyState state = KeyState.empty();
        state.tryAcquire(limits, T0, 3);
        // The same minute's count, and no state for the per-second limits: what the expired ones stand for.
        KeyState fresh = KeyState.empty();
        fresh.tryAcquire(List.of(perMinute), T0, 3);

        long later = T0 + 2_000_000;
        assertThat(state.holds("second", later)).isFalse();
        assertThat(state.tryAcquire(limits, later, 4)).isEqualTo(fresh.tryAcquire(limits, later, 4));
        // Charged where they were, not dropped and appended after the minute's.
        assertThat(state.toString()).startsWith("KeyState[second until " + (later + 400_000) + ", minute");
        for (long at = later + 50_000; at < later + 3_000_000; at += 450_000) {
            assertThat(state.tryAcquire(limits, at, 3)).isEqualTo(fresh.tryAcquire(limits, at, 3));
        }

        // A denial on expired states keeps none of them.
        KeyState denied = KeyState.empty();
        denied.tryAcquire(List.of(perSecond, perSecondGcra), T0, 1);
        Decision tooMuch = denied.tryAcquire(List.of(perSecond, perSecondGcra), later, 6);
        assertThat(tooMuch.reason()).isEqualTo(Decision.Reason.COST_EXCEEDS_CAPACITY);
        assertThat(denied.isEmpty()).isTrue();
        assertThat(denied.expiresAtMicros()).isZero();
    }

    @Test
    void roundTripsAndExpires() {
        KeyState state = KeyState.empty();
        assertThat(state.isEmpty()).isTrue();
        state.tryAcquire(List.of(perSecond, perMinute), T0, 1);
        KeyState copy = KeyState.decode(state.encode());
        assertThat(copy.encode()).isEqualTo(state.encode());
        assertThat(copy.holds("second", T0)).isTrue();
        assertThat(copy.holds("minute", T0)).isTrue();
        assertThat(copy.expiresAtMicros()).isEqualTo(T0 - T0 % 60_000_000 + 60_000_000);
        assertThat(copy.holds("second", T0 + 100_000)).isFalse();
        copy.tryAcquire(List.of(perSecond), T0 + copy.expiresAtMicros() - T0, 1);
        assertThat(copy.holds("minute", copy.expiresAtMicros())).isFalse();
    }

    @Test
    void rejectsUnknownVersionsAndTruncatedInput() {
        assertThatThrownBy(() -> KeyState.decode(new byte[] {9}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("9");
        byte[] bytes = KeyState.empty().encode();
        KeyState state = KeyState.empty();
        state.tryAcquire(List.of(perSecond), T0, 1);
        byte[] full = state.encode();
        assertThatThrownBy(() -> KeyState.decode(java.util.Arrays.copyOf(full, full.length - 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(KeyState.decode(bytes).isEmpty()).isTrue();
    }

    @Test
    void aLongSlidingLogIsEncodedInFixedWidthAndDecidedOnAsItWasBeforeEncoding() {
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofSeconds(10)).named("log");
        KeyState state = KeyState.empty();
        for (int i = 0; i < 1_000; i++) {
            assertThat(state.tryAcquire(List.of(log, perMinute), T0 + 1_000L * i, 1).binding()).isIn(log, perMinute);
        }
        byte[] bytes = state.encode();
        assertThat(bytes[0]).isEqualTo(KeyState.FORMAT_VERSION);
        // 15 admitted entries (the minute limit binds after 15): 32 longs, written 8 bytes each.
        assertThat(bytes.length).isGreaterThan(32 * Long.BYTES);
        KeyState copy = KeyState.decode(bytes);
        assertThat(copy.encode()).isEqualTo(bytes);

        KeyState fresh = KeyState.empty();
        Limit only = log.named("only");
        for (int i = 0; i < 1_000; i++) {
            fresh.tryAcquire(List.of(only), T0 + 1_000L * i, 1);
        }
        KeyState decoded = KeyState.decode(fresh.encode());
        for (long at : new long[] {T0 + 1_000_000, T0 + 9_999_999, T0 + 10_000_000, T0 + 10_500_500}) {
            assertThat(decoded.tryAcquire(List.of(only), at, 1)).isEqualTo(fresh.tryAcquire(List.of(only), at, 1));
            assertThat(decoded.encode()).isEqualTo(fresh.encode());
        }
    }

    @Test
    void aDenialOnADecodedSlidingLogOfTenThousandEntriesDoesNotDecodeTheLog() {
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 10_000, Duration.ofSeconds(100)).named("log");
        KeyState state = KeyState.empty();
        for (int i = 0; i < 10_000; i++) {
            state.tryAcquire(List.of(log), T0 + 1_000L * i, 1);
        }
        byte[] bytes = state.encode();
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        for (int round = 0; round < 3; round++) {
            long before = threads.getThreadAllocatedBytes(thread);
            Decision denied = KeyState.decode(bytes).tryAcquire(List.of(log), T0 + 20_000_000, 1);
            long allocated = threads.getThreadAllocatedBytes(thread) - before;
            assertThat(denied.allowed()).isFalse();
            // A decoded log would be 20,002 longs, 160 KB: this denial allocates the key's few
            // objects (a few KB before the JIT has compiled them away).
            assertThat(allocated).isLessThan(16_384);
        }
    }

    @Test
    void aShortLogDecidedWithChunksIsReadInPlaceAsWithout() {
        // 126 entries, the most a log holds that one admission leaves whole: 254 longs, 2,032
        // bytes decoded. With chunks, the log used to be decoded and built anew as an array, two
        // copies per decision (over 4 KB); read in place, a decision allocates a few objects.
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofSeconds(100)).named("log");
        KeyState filled = KeyState.empty();
        for (int i = 0; i < 2 * ChunkedLog.CHUNK_ENTRIES - 2; i++) {
            filled.tryAcquire(List.of(log), T0 + 1_000L * i, 1);
        }
        byte[] bytes = filled.encode();
        LogChunks none = new LogChunks() {
            @Override
            public long[] chunk(String limitName, long birth, long index) {
                throw new AssertionError("a whole log needs no chunk");
            }

            @Override
            public void need(String limitName, long birth, long index) {
                throw new AssertionError("a whole log needs no chunk");
            }

            @Override
            public void flush(String limitName, long birth, long index, long[] entries) {
                throw new AssertionError("a log that stays whole flushes nothing");
            }
        };
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        List<Limit> limits = List.of(log);
        long fewest = Long.MAX_VALUE;
        long fewestPlain = Long.MAX_VALUE;
        for (int round = 0; round < 20; round++) {
            KeyState chunked = KeyState.decode(bytes);
            KeyState plain = KeyState.decode(bytes);
            long before = threads.getThreadAllocatedBytes(thread);
            Decision admitted = chunked.tryAcquire(limits, T0 + 200_000, 1, none);
            long between = threads.getThreadAllocatedBytes(thread);
            Decision admittedPlain = plain.tryAcquire(limits, T0 + 200_000, 1);
            fewestPlain = Math.min(fewestPlain, threads.getThreadAllocatedBytes(thread) - between);
            fewest = Math.min(fewest, between - before);
            assertThat(admitted).isEqualTo(admittedPlain);
            assertThat(chunked.encode()).isEqualTo(plain.encode());
        }
        assertThat(fewest).isLessThan(2_032);
        // A log that stays whole decides as without chunks: no fold, no outcomes, no second
        // transition (measured: 464 bytes with them against 256 without; the margin only
        // absorbs what the JIT may remove from one path and not the other).
        assertThat(fewest).isLessThanOrEqualTo(fewestPlain + 64);
    }

    @Test
    void readsFormatOne() {
        // One limit "x", expiry 1, state [3, 4]: every number a zig-zag varint, the length unsigned.
        byte[] formatOne = {KeyState.FORMAT_VERSION_1, 1, 1, 'x', 2, 2, 6, 8};
        KeyState state = KeyState.decode(formatOne);
        assertThat(state.holds("x", 0)).isTrue();
        // Format 2 writes the length as a header, length << 1 | fixed-width.
        assertThat(state.encode()).containsExactly(KeyState.FORMAT_VERSION, 1, 1, 'x', 2, 4, 6, 8);
    }
}
