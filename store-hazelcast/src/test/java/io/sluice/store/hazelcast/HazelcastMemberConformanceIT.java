package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;

/**
 * The conformance kit on a store embedded in the first of three members: two thirds of the
 * keys are owned by another member, so most decisions cross the network and every one is
 * backed up.
 */
class HazelcastMemberConformanceIT extends HazelcastConformance {

    @Override
    HazelcastInstance startStoresInstance(TestCluster cluster) {
        HazelcastInstance gateway = cluster.startMember();
        cluster.startMember();
        cluster.startMember();
        return gateway;
    }
}
