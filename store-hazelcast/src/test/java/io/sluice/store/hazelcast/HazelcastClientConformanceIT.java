package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import io.sluice.api.Store;
import io.sluice.testkit.KeyStateFormats;
import io.sluice.testkit.PreviousFormat;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.Optional;
import net.jqwik.api.lifecycle.AfterContainer;

/** The conformance kit on a store on a client of a cluster of two members. */
class HazelcastClientConformanceIT extends StoreConformance {

    private static TestCluster cluster;
    private static HazelcastInstance client;

    private static final String VIRTUAL_CLOCK_MAP = "conformance-virtual";
    private static final String OWN_CLOCK_MAP = "conformance-own-clock";

    @Override
    protected boolean holdsAnythingFor(Store store, String key) {
        // Every key of the kit is new, so it is in the map of the store that wrote it or nowhere.
        return client().getMap(VIRTUAL_CLOCK_MAP).containsKey(key) || client().getMap(OWN_CLOCK_MAP).containsKey(key);
    }

    @Override
    protected Optional<PreviousFormat> previousFormat(Store store) {
        // KeyState format 1 is the current one until a version 2 replaces it.
        return Optional.of(PreviousFormat.read(1, (key, states, nowMicros) ->
                client().<String, byte[]>getMap(VIRTUAL_CLOCK_MAP).set(key, KeyStateFormats.version1(states))));
    }

    @Override
    protected Store createStore(VirtualClock clock) {
        return HazelcastStore.builder(client()).mapName(VIRTUAL_CLOCK_MAP)
                .timeout(Duration.ofSeconds(30)).clockForTesting(clock).build();
    }

    @Override
    protected Store createStore() {
        return HazelcastStore.builder(client()).mapName(OWN_CLOCK_MAP)
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
