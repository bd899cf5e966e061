package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;

/** The conformance kit on a store on a client of a cluster of two members. */
class HazelcastClientConformanceIT extends HazelcastConformance {

    @Override
    HazelcastInstance startStoresInstance(TestCluster cluster) {
        cluster.startMember();
        cluster.startMember();
        return cluster.startClient();
    }
}
