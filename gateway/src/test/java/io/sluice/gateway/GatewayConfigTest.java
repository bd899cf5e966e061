package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.PolicyConfig;
import io.sluice.http.HeaderFamily;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GatewayConfigTest {

    private static final String POLICY = """
            tiers:
              - name: free
                limits:
                  - name: per-second
                    algorithm: gcra
                    permits: 5
                    period: 1s
            """;

    @Test
    void withoutItsSectionsTheGatewayRunsOnTheLocalStoreWithTheIetfFields() {
        GatewayConfig config = GatewayConfig.parse(POLICY, "sluice.yaml");

        assertThat(config.store().kind()).isEqualTo("local");
        assertThat(config.headerFamilies()).containsExactly(HeaderFamily.IETF);
        assertThat(config.identity().apiKeyHeader()).contains("X-Api-Key");
    }

    @Test
    void thePolicyParserLeavesTheGatewaySectionsToTheGateway() {
        String yaml = """
                store:
                  type: redis
                  cluster: [redis://node-1:6379, redis://node-2:6379]
                  timeout: 20ms
                http:
                  api-key-header: Authorization-Key
                  api-key-query-parameter: api_key
                  trusted-proxies: [10.0.0.0/8]
                  headers: [x-ratelimit]
                """ + POLICY;

        GatewayConfig config = GatewayConfig.parse(yaml, "sluice.yaml");

        assertThat(PolicyConfig.parse(yaml, "sluice.yaml").toString()).contains("tiers [free]");
        assertThat(config.store()).satisfies(store -> {
            assertThat(store.kind()).isEqualTo("redis");
            assertThat(store.mode()).isEqualTo("cluster");
            assertThat(store.uris()).containsExactly("redis://node-1:6379", "redis://node-2:6379");
            assertThat(store.timeout()).isEqualTo(Duration.ofMillis(20));
            assertThat(store.readKeySchema1()).as("unset: schema 1 is not read").isFalse();
        });
        assertThat(GatewayConfig.parse("store:\n  type: redis\n  uri: redis://x\n  read-key-schema-1: true\n"
                + POLICY, "sluice.yaml").store().readKeySchema1()).isTrue();
        assertThat(config.identity().apiKeyHeader()).contains("Authorization-Key");
        assertThat(config.headerFamilies()).isEqualTo(Set.of(HeaderFamily.X_RATE_LIMIT));
    }

    @Test
    void hazelcastAndIgniteAreClientsUnlessToldToBeMembers() {
        GatewayConfig client = GatewayConfig.parse("""
                store:
                  type: hazelcast
                  cluster-name: limits
                  addresses: ["10.0.0.5:5701"]
                """ + POLICY, "sluice.yaml");
        GatewayConfig member = GatewayConfig.parse("store:\n  type: ignite\n  mode: member\n" + POLICY, "sluice.yaml");

        assertThat(client.store().mode()).isEqualTo("client");
        assertThat(client.store().addresses()).isEqualTo(List.of("10.0.0.5:5701"));
        assertThat(client.store().clusterName()).isEqualTo("limits");
        assertThat(member.store().mode()).isEqualTo("member");
        assertThat(client.store().instances()).as("unset: the store counts the gateways").isZero();
        assertThat(GatewayConfig.parse("store:\n  type: ignite\n  mode: member\n  instances: 1_000\n" + POLICY,
                "sluice.yaml").store().instances()).isEqualTo(1_000);
    }

    @Test
    void mistakesAreReportedWithTheirLine() {
        assertThatThrownBy(() -> GatewayConfig.parse("store:\n  type: redis\n  uri: redis://x\n  timout: 5ms\n",
                "sluice.yaml")).hasMessage("sluice.yaml:4: unknown field 'timout' in a redis store (expected one of "
                        + "[cluster, instances, read-key-schema-1, timeout, type, uri])");
        assertThatThrownBy(() -> GatewayConfig.parse("store:\n  type: memcached\n", "sluice.yaml"))
                .hasMessageStartingWith("sluice.yaml:2: unknown store type 'memcached'");
        assertThatThrownBy(() -> GatewayConfig.parse("store:\n  type: hazelcast\n", "sluice.yaml"))
                .hasMessage("sluice.yaml:2: a hazelcast client needs the addresses of the cluster's members");
        assertThatThrownBy(() -> GatewayConfig.parse("store:\n  type: redis\n", "sluice.yaml"))
                .hasMessageContaining("either uri (one server) or cluster");
        assertThatThrownBy(() -> GatewayConfig.parse("http:\n  trusted-proxies: [10.0.0.0/40]\n", "sluice.yaml"))
                .hasMessageStartingWith("sluice.yaml:2: ").hasMessageContaining("10.0.0.0/40");
        assertThatThrownBy(() -> GatewayConfig.parse("http:\n  headers: [ietf, draft-6]\n", "sluice.yaml"))
                .hasMessageContaining("unknown header family 'draft-6'");
        assertThatThrownBy(() -> GatewayConfig.parse("store:\n  type: redis\n  uri: redis://x\n  instances: 0\n",
                "sluice.yaml")).hasMessage("sluice.yaml:4: instances must be a positive number, got '0'");
        assertThatThrownBy(() -> GatewayConfig.parse("store:\n  type: local\n  instances: 20\n", "sluice.yaml"))
                .hasMessageStartingWith("sluice.yaml:3: unknown field 'instances' in a local store");
        assertThatThrownBy(() -> GatewayConfig.parse("store:\n  type: redis\n  uri: redis://x\n  timeout: soon\n",
                "sluice.yaml")).hasMessageStartingWith("sluice.yaml:4: timeout:");
        assertThatThrownBy(() -> GatewayConfig.parse("store:\n  type: redis\n  uri: redis://x\n  read-key-schema-1: yes\n",
                "sluice.yaml")).hasMessage("sluice.yaml:4: read-key-schema-1 must be true or false, got 'yes'");
    }

    @Test
    void theExampleConfigOfTheReadmeIsValid() {
        Path example = Path.of("examples/sluice.yaml");

        assertThat(PolicyConfig.load(example).toString()).contains("tiers");
        assertThat(GatewayConfig.load(example).headerFamilies()).containsExactlyInAnyOrder(HeaderFamily.IETF,
                HeaderFamily.X_RATE_LIMIT);
    }
}
