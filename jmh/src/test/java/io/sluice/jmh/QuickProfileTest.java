package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;

/**
 * Keeps the in-process benchmarks from rotting: runs every local implementation and peer in
 * the CI profile (in process, 100 ms iterations) and checks that each produced figures and a
 * report. It never looks at how fast anything was.
 */
class QuickProfileTest {

    @Test
    void everyLocalImplementationIsMeasuredInBothModes(@TempDir Path output) throws Exception {
        Collection<RunResult> results = BenchmarkProfiles.run(BenchmarkProfiles.Profile.CI, List.of("local"),
                Map.of(), output);

        for (Mode mode : List.of(Mode.SampleTime, Mode.Throughput)) {
            assertThat(results.stream().filter(r -> r.getParams().getMode() == mode)
                    .map(r -> r.getParams().getParam("impl")).collect(Collectors.toSet()))
                    .as("implementations measured in %s", mode)
                    .containsExactlyInAnyOrderElementsOf(Arrays.stream(LocalImpl.values()).map(Enum::name).toList());
        }
        // Every implementation, on both limit shapes and key patterns.
        assertThat(results).hasSize(LocalImpl.values().length * LimitShape.values().length
                * KeyPattern.values().length * 2);
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getSampleCount()).isPositive());
        assertThat(output.resolve("local-latency.json")).isNotEmptyFile();
        assertThat(output.resolve("local-throughput-1t.json")).isNotEmptyFile();

        String report = ResultTables.markdown("ci", results);
        assertThat(report).contains("### Local, limits=SINGLE", "### Local, limits=MISSION",
                "| **SLUICE_TOKEN_BUCKET** |", "| BUCKET4J |", "x peer");
    }
}
