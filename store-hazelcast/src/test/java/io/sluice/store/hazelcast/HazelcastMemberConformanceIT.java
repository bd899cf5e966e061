package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.Store;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The conformance kit on a store embedded in the first of three members: two thirds of the
 * keys are owned by another member, so most decisions cross the network and every one is
 * backed up.
 */
class HazelcastMemberConformanceIT extends StoreConformance {

    private static TestCluster cluster;
    private static HazelcastInstance gateway;

    @Override
    protected Store createStore(VirtualClock clock) {
        return HazelcastStore.builder(gateway()).mapName("conformance-virtual")
                .timeout(Duration.ofSeconds(30)).clockForTesting(clock).build();
    }

    @Override
    protected Store createStore() {
        return HazelcastStore.builder(gateway()).mapName("conformance-own-clock")
                .timeout(Duration.ofSeconds(30)).build();
    }

    private static synchronized HazelcastInstance gateway() {
        if (cluster == null) {
            cluster = new TestCluster();
            gateway = cluster.startMember();
            cluster.startMember();
            cluster.startMember();
        }
        return gateway;
    }

    @AfterContainer
    static synchronized void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
