package io.sluice.store.hazelcast;

import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.TimeSource;

/**
 * The conformance kit on a store embedded in the first of two members whose maps keep their
 * values as objects ({@code OBJECT}): long states are kept in place, as whole logs, though the
 * store sends its decisions with chunks.
 */
class HazelcastObjectConformanceIT extends HazelcastConformance {

    @Override
    HazelcastInstance startStoresInstance(TestCluster cluster) {
        HazelcastInstance gateway = startObjectMember(cluster);
        startObjectMember(cluster);
        return gateway;
    }

    private static HazelcastInstance startObjectMember(TestCluster cluster) {
        return cluster.startMember(TimeSource.system(), config -> config
                .addMapConfig(new MapConfig("conformance-*").setInMemoryFormat(InMemoryFormat.OBJECT)));
    }
}
