package io.sluice.store.hazelcast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryYamlConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreUnavailableException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a member needs to run the store's processors, each on a one-member cluster. */
class MemberConfigurationIT {

    private static final Limit LIMIT = Limit.of(Algorithms.GCRA, 5, Duration.ofSeconds(1));

    @Test
    void aMemberWithoutTheFactoryIsRefusedAndItsClientsGetStoreFailures() {
        try (TestCluster cluster = new TestCluster()) {
            HazelcastInstance member = cluster.startMember(null, config -> config.getSerializationConfig()
                    .getDataSerializableFactories().remove(HazelcastStore.SERIALIZATION_FACTORY_ID));

            assertThatThrownBy(() -> HazelcastStore.builder(member).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("HazelcastStore.configureSerialization");

            Store store = HazelcastStore.builder(cluster.startClient()).timeout(Duration.ofSeconds(30)).build();
            assertThatThrownBy(() -> store.tryAcquire("k", List.of(LIMIT), 1).toCompletableFuture().join())
                    .cause().isInstanceOf(StoreUnavailableException.class)
                    .cause().isInstanceOf(HazelcastSerializationException.class);
        }
    }

    /**
     * {@link HazelcastStore#LOG_CHUNKS_PROPERTY} {@code false} on a member (a rolling upgrade
     * from a version that refuses chunks): its store keeps a long sliding log whole, where a
     * store without it (here the client's) keeps a bounded head.
     */
    @Test
    void aMemberWithLogChunksOffKeepsLongSlidingLogsWhole() {
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofHours(1));
        try (TestCluster cluster = new TestCluster()) {
            HazelcastInstance member = cluster.startMember(null,
                    config -> config.setProperty(HazelcastStore.LOG_CHUNKS_PROPERTY, "false"));
            Store whole = HazelcastStore.builder(member).timeout(Duration.ofSeconds(30)).build();
            Store chunked = HazelcastStore.builder(cluster.startClient()).timeout(Duration.ofSeconds(30)).build();

            for (int i = 0; i < 300; i++) {
                assertThat(whole.tryAcquireAndWait("whole", List.of(log), 1).allowed()).isTrue();
                assertThat(chunked.tryAcquireAndWait("chunked", List.of(log), 1).allowed()).isTrue();
            }

            var states = member.<String, byte[]>getMap(HazelcastStore.DEFAULT_MAP_NAME);
            assertThat(KeyState.holdsHeads(states.get("whole"))).isFalse();
            assertThat(KeyState.holdsHeads(states.get("chunked"))).isTrue();
        }
    }

    /** The member configuration of docs/stores/hazelcast.md, in YAML. */
    private static final String DOCUMENTED_YAML = """
            hazelcast:
              serialization:
                data-serializable-factories:
                  - factory-id: 1399616867
                    class-name: io.sluice.store.hazelcast.ProcessorFactory
              map:
                sluice:
                  backup-count: 1
            """;

    @Test
    void theDocumentedDeclarativeConfigurationServesAsWell() {
        Config documented = new InMemoryYamlConfig(DOCUMENTED_YAML);
        assertThat(documented.getMapConfig(HazelcastStore.DEFAULT_MAP_NAME).getBackupCount()).isEqualTo(1);
        try (TestCluster cluster = new TestCluster()) {
            HazelcastInstance member = cluster.startMember(null, config -> {
                config.setSerializationConfig(documented.getSerializationConfig());
                config.addMapConfig(documented.getMapConfig(HazelcastStore.DEFAULT_MAP_NAME));
            });

            Store store = HazelcastStore.builder(member).timeout(Duration.ofSeconds(30)).build();
            Decision decision = store.tryAcquire("k", List.of(LIMIT), 1).toCompletableFuture().join();

            assertThat(decision.allowed()).isTrue();
            assertThat(decision.remaining()).isEqualTo(4);
        }
    }
}
