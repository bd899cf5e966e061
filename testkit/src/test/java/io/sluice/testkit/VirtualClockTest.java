package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class VirtualClockTest {

    @Test
    void movesOnlyWhenMoved() {
        VirtualClock clock = new VirtualClock(1_000);
        assertThat(clock.nowMicros()).isEqualTo(1_000);
        clock.advanceMicros(5);
        clock.advance(Duration.ofMillis(2));
        assertThat(clock.nowMicros()).isEqualTo(3_005);
        clock.setMicros(10);
        assertThat(clock.nowMicros()).isEqualTo(10);
    }

    @Test
    void losesNoAdvanceAcrossThreads() {
        VirtualClock clock = new VirtualClock(0);
        IntStream.range(0, 10_000).parallel().forEach(i -> clock.advanceMicros(1));
        assertThat(clock.nowMicros()).isEqualTo(10_000);
    }

    @Test
    void rejectsNegativeAndSubMicrosecondSteps() {
        VirtualClock clock = new VirtualClock(0);
        assertThatThrownBy(() -> clock.advanceMicros(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-2S");
        assertThatThrownBy(() -> clock.advance(Duration.ofNanos(1_500)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT0.0000015S");
        assertThat(clock.nowMicros()).isZero();
    }
}
