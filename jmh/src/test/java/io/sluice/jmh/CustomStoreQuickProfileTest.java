package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;

/**
 * Keeps the hook for a store of one's own from rotting: benchmarks the store that
 * docs/writing-a-store.md builds (a {@code StoreProvider} in sluice-testkit's tests) in the CI
 * profile, narrowed to the single limit, and checks that it appears beside Sluice's local
 * store and the peers in the report. Never looks at timing.
 */
class CustomStoreQuickProfileTest {

    private static final String GUIDE_STORE = "com.example.store.MapCasStoreProvider";

    @Test
    void theGuidesStoreIsMeasuredBesideTheLocalStoreAndThePeers(@TempDir Path output) throws Exception {
        Collection<RunResult> results = BenchmarkProfiles.run(BenchmarkProfiles.Profile.CI, List.of("custom"),
                Map.of("store", new String[] {GUIDE_STORE}, "limits", new String[] {"SINGLE"}), output);

        assertThat(results.stream().map(r -> r.getParams().getParam("impl")).collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(CustomImpl.values()).map(Enum::name).toList());
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getSampleCount()).isPositive());
        String report = ResultTables.markdown("ci", results);
        assertThat(report).contains("### Custom, limits=SINGLE, store=" + GUIDE_STORE,
                "| **CUSTOM_TOKEN_BUCKET** |", "| **SLUICE_TOKEN_BUCKET** |", "| BUCKET4J |", "x peer");
    }

    @Test
    void aStoreThatIsNotAProviderIsRejectedWithItsName() {
        assertThatThrownBy(() -> CustomBenchmark.provider("java.lang.String"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.String");
        assertThatThrownBy(() -> CustomBenchmark.provider(""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("store=");
    }
}
