package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.store.hazelcast.HazelcastStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway on the grid stores its config names: a client of a Hazelcast cluster, an Ignite member. */
class GridGatewayIT {

    private static final String POLICY = """
            tiers:
              - name: free
                limits:
                  - name: per-minute
                    algorithm: sliding-window-counter
                    permits: 5
                    period: 1m
            api-keys:
              keys:
                - key: "grid-key-0123456789"
                  tier: free
            """;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aHazelcastClientGatewayLimitsOnTheClustersState() throws Exception {
        try (HazelcastTestMember member = HazelcastTestMember.start("sluice-gateway-it-")) {
            assertThat(statuses(member.storeSection("client", "2s")))
                    .containsExactly(200, 200, 200, 200, 200, 429, 429);
            assertThat(member.instance().getMap(HazelcastStore.DEFAULT_MAP_NAME).size()).isPositive();
        }
    }

    @Test
    void anIgniteMemberGatewayLimits() throws Exception {
        assertThat(statuses("""
                store:
                  type: ignite
                  mode: member
                  addresses: ["127.0.0.1:48500..48509"]
                  timeout: 2s
                """)).containsExactly(200, 200, 200, 200, 200, 429, 429);
    }

    private List<Integer> statuses(String store) throws Exception {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, store + POLICY, StandardCharsets.UTF_8);
        List<Integer> statuses = new ArrayList<>();
        try (TestUpstream upstream = new TestUpstream();
             Gateway gateway = Gateway.start(new Gateway.Settings(file, upstream.uri(), "127.0.0.1", 0, "127.0.0.1",
                     0, Duration.ofSeconds(10), true))) {
            for (int i = 0; i < 7; i++) {
                statuses.add(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/x"))
                        .header("X-Api-Key", "grid-key-0123456789").build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode());
            }
        }
        return statuses;
    }
}
