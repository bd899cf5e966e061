package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.jmh.BenchmarkProfiles.Profile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How long a profile's throughput runs warm up at each thread count. */
class BenchmarkProfilesTest {

    @ParameterizedTest(name = "{0}, {1} threads on {2} cores: {3}")
    @CsvSource({
            "QUICK, 9, 2, 5",
            "QUICK, 16, 2, 8",
            "QUICK, 64, 16, 4",
            "FULL, 9, 2, 10",
            "FULL, 32, 2, 32"})
    void aRunWarmsUpOnceForEachThreadPerCoreRoundedUp(Profile profile, int threads, int cores, int warmups) {
        assertThat(BenchmarkProfiles.warmupIterations(profile, threads, cores)).isEqualTo(warmups);
    }

    @ParameterizedTest(name = "{0}, {1} threads on {2} cores: {3}")
    @CsvSource({
            "QUICK, 1, 2, 4",
            "QUICK, 2, 2, 4",
            "QUICK, 8, 2, 4",
            "QUICK, 8, 16, 4",
            "FULL, 1, 2, 8",
            "FULL, 2, 2, 8",
            "FULL, 8, 2, 8",
            "FULL, 2, 16, 8"})
    void aRunWarmsUpAtLeastFourTimesInTheQuickProfileAndEightInTheFull(Profile profile, int threads, int cores,
                                                                       int warmups) {
        assertThat(BenchmarkProfiles.warmupIterations(profile, threads, cores)).isEqualTo(warmups);
    }

    @Test
    void noThreadsOrNoCoresIsRejectedByValue() {
        assertThatThrownBy(() -> BenchmarkProfiles.warmupIterations(Profile.QUICK, 0, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0, 2");
        assertThatThrownBy(() -> BenchmarkProfiles.warmupIterations(Profile.QUICK, 8, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("8, 0");
    }
}
