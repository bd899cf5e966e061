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
import org.jspecify.annotations.Nullable;

/**
 * The conformance kit on stores built on one instance (a member or a client) of a cluster that
 * a subclass starts ({@link #startStoresInstance}): started on first use, stopped once the
 * subclass's tests are done.
 */
abstract class HazelcastConformance extends StoreConformance {

    private static final String VIRTUAL_CLOCK_MAP = "conformance-virtual";
    private static final String OWN_CLOCK_MAP = "conformance-own-clock";

    /** The cluster of the test class running; {@code null} until first used. */
    private static @Nullable TestCluster cluster;
    private static @Nullable HazelcastInstance storesInstance;

    /** Starts the members (and client, if any) of {@code cluster}; returns the one the stores are built on. */
    abstract HazelcastInstance startStoresInstance(TestCluster cluster);

    @AfterContainer
    static synchronized void stopCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
            storesInstance = null;
        }
    }

    @Override
    protected boolean holdsAnythingFor(Store store, String key) {
        // Every key of the kit is new, so it is in the map of the store that wrote it or nowhere.
        return instance().getMap(VIRTUAL_CLOCK_MAP).containsKey(key) || instance().getMap(OWN_CLOCK_MAP).containsKey(key);
    }

    @Override
    protected Optional<PreviousFormat> previousFormat(Store store) {
        // KeyState format 1 is the current one until a version 2 replaces it.
        return Optional.of(PreviousFormat.read(1, (key, states, nowMicros) ->
                instance().<String, byte[]>getMap(VIRTUAL_CLOCK_MAP).set(key, KeyStateFormats.version1(states))));
    }

    @Override
    protected Store createStore(VirtualClock clock) {
        return HazelcastStore.builder(instance()).mapName(VIRTUAL_CLOCK_MAP)
                .timeout(Duration.ofSeconds(30)).clockForTesting(clock).build();
    }

    @Override
    protected Store createStore() {
        return HazelcastStore.builder(instance()).mapName(OWN_CLOCK_MAP)
                .timeout(Duration.ofSeconds(30)).build();
    }

    /** The instance the stores are built on, its cluster started on first use. */
    private HazelcastInstance instance() {
        synchronized (HazelcastConformance.class) {
            HazelcastInstance instance = storesInstance;
            if (instance == null) {
                TestCluster started = new TestCluster();
                try {
                    instance = startStoresInstance(started);
                } catch (RuntimeException e) {
                    started.close();
                    throw e;
                }
                cluster = started;
                storesInstance = instance;
            }
            return instance;
        }
    }
}
