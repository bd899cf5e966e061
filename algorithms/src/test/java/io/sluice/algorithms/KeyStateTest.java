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
}
