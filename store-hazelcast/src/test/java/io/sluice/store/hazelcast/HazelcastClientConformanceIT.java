package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.Store;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import net.jqwik.api.lifecycle.AfterContainer;

/** The conformance kit on a store on a client of a cluster of two members. */
class HazelcastClientConformanceIT extends StoreConformance {

    private static TestCluster cluster;
    private static HazelcastInstance client;

    @Override
    protected Store createStore(VirtualClock clock) {
        return HazelcastStore.builder(client()).mapName("conformance-virtual")
                .timeout(Duration.ofSeconds(30)).clockForTesting(clock).build();
    }

    @Override
    protected Store createStore() {
        return HazelcastStore.builder(client()).mapName("conformance-own-clock")
                .timeout(Duration.ofSeconds(30)).build();
    }

    private static synchronized HazelcastInstance client() {
        if (cluster == null) {
            cluster = new TestCluster();
            cluster.startMember();
            cluster.startMember();
            client = cluster.startClient();
        }
        return client;
    }

    @AfterContainer
    static synchronized void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
