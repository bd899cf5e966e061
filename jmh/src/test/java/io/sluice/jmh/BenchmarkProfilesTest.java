package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** How long a profile's throughput runs warm up at each thread count. */
class BenchmarkProfilesTest {

    @Test
    void aRunWarmsUpOnceForEachThreadPerCoreRoundedUp() {
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 9, 2)).isEqualTo(5);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 16, 2)).isEqualTo(8);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 64, 16)).isEqualTo(4);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.FULL, 9, 2)).isEqualTo(10);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.FULL, 32, 2)).isEqualTo(32);
    }

    @Test
    void theQuickProfileWarmsUpAtLeastFourTimesAtAnyThreadCount() {
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 1, 2)).isEqualTo(4);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 2, 2)).isEqualTo(4);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 8, 2)).isEqualTo(4);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 8, 16)).isEqualTo(4);
    }

    @Test
    void theFullProfileWarmsUpAtLeastEightTimesAtAnyThreadCount() {
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.FULL, 1, 2)).isEqualTo(8);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.FULL, 2, 2)).isEqualTo(8);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.FULL, 8, 2)).isEqualTo(8);
        assertThat(BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.FULL, 2, 16)).isEqualTo(8);
    }

    @Test
    void noThreadsOrNoCoresIsRejectedByValue() {
        assertThatThrownBy(() -> BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 0, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0, 2");
        assertThatThrownBy(() -> BenchmarkProfiles.warmupIterations(BenchmarkProfiles.Profile.QUICK, 8, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8, 0");
    }
}
