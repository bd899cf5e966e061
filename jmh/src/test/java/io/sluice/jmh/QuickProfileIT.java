package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.results.RunResult;

/**
 * Keeps the server benchmarks from rotting: runs them in the CI profile against the servers
 * they start themselves, narrowed to the hot key and the single limit (and on a cluster to a
 * few implementations) so that the build stays short, and checks that every implementation
 * run produced figures. Never looks at timing.
 */
class QuickProfileIT {

    @Test
    void everyRedisImplementationRunsOnStandaloneAndOnACluster(@TempDir Path output) throws Exception {
        Map<String, String[]> hotKeySingleLimit = Map.of("keys", new String[] {"HOT"}, "limits", new String[] {"SINGLE"});
        List<RunResult> results = new ArrayList<>(BenchmarkProfiles.run(BenchmarkProfiles.Profile.CI, List.of("redis"),
                with(hotKeySingleLimit, "topology", "STANDALONE"), output));
        // On a cluster, one implementation of each kind: the cluster takes longest to start.
        results.addAll(BenchmarkProfiles.run(BenchmarkProfiles.Profile.CI, List.of("redis"),
                with(with(hotKeySingleLimit, "topology", "CLUSTER"), "impl", "SLUICE_TOKEN_BUCKET", "BUCKET4J", "EVALSHA"),
                output));

        assertThat(measured(results, "STANDALONE"))
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(RedisImpl.values()).map(Enum::name).toList());
        assertThat(measured(results, "CLUSTER")).containsExactlyInAnyOrder("SLUICE_TOKEN_BUCKET", "BUCKET4J", "EVALSHA");
        assertThat(results).allSatisfy(r -> assertThat(r.getPrimaryResult().getSampleCount()).isPositive());
        assertThat(ResultTables.markdown("ci", results))
                .contains("### Redis, limits=SINGLE, topology=CLUSTER", "| EVALSHA (floor) |", "x floor");
    }

    @Test
    void sluiceAndBucket4jRunOnAHazelcastMemberInAnotherJvm(@TempDir Path output) throws Exception {
        // Each trial starts a member process and a member here: two implementations only.
        Collection<RunResult> results = BenchmarkProfiles.run(BenchmarkProfiles.Profile.CI, List.of("hazelcast"),
                Map.of("keys", new String[] {"HOT"}, "limits", new String[] {"SINGLE"},
                        "impl", new String[] {"SLUICE_TOKEN_BUCKET", "BUCKET4J"}),
                output);

        assertThat(results).hasSize(4)
                .allSatisfy(r -> assertThat(r.getPrimaryResult().getSampleCount()).isPositive());
        assertThat(ResultTables.markdown("ci", results)).contains("### Hazelcast, caller=MEMBER, limits=SINGLE",
                "| **SLUICE_TOKEN_BUCKET** |", "| BUCKET4J |");
    }

    @Test
    void sluiceRunsOnAnIgniteNodeInAnotherJvm(@TempDir Path output) throws Exception {
        Collection<RunResult> results = BenchmarkProfiles.run(BenchmarkProfiles.Profile.CI, List.of("ignite"),
                Map.of("keys", new String[] {"HOT"}, "limits", new String[] {"SINGLE"},
                        "impl", new String[] {"SLUICE_TOKEN_BUCKET"}),
                output);

        assertThat(results).hasSize(2)
                .allSatisfy(r -> assertThat(r.getPrimaryResult().getSampleCount()).isPositive());
        assertThat(ResultTables.markdown("ci", results)).contains("### Ignite, caller=MEMBER, limits=SINGLE",
                "| **SLUICE_TOKEN_BUCKET** |");
    }

    private static Set<String> measured(List<RunResult> results, String topology) {
        return results.stream().filter(r -> r.getParams().getParam("topology").equals(topology))
                .map(r -> r.getParams().getParam("impl")).collect(Collectors.toSet());
    }

    private static Map<String, String[]> with(Map<String, String[]> params, String name, String... values) {
        Map<String, String[]> more = new HashMap<>(params);
        more.put(name, values);
        return more;
    }
}
