package io.sluice.store.ignite;

import io.sluice.api.Store;
import io.sluice.testkit.KeyStateFormats;
import io.sluice.testkit.PreviousFormat;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.Optional;
import net.jqwik.api.lifecycle.AfterContainer;
import org.apache.ignite.Ignite;

/**
 * The whole conformance kit against two server nodes and a client node: the store on the
 * virtual clock runs embedded in a server (so some keys are local, some remote), the store on
 * the members' own clocks runs on the client.
 */
class IgniteStoreConformanceIT extends StoreConformance {

    private static IgniteMembers members;
    private static Ignite server;
    private static Ignite client;

    private static synchronized void startCluster() {
        if (members == null) {
            members = new IgniteMembers("conformance");
            server = members.startServer("a");
            members.startServer("b");
            client = members.startClient("client");
        }
    }

    @AfterContainer
    static synchronized void stopCluster() {
        if (members != null) {
            members.close();
            members = null;
        }
    }

    @Override
    protected boolean holdsAnythingFor(Store store, String key) {
        startCluster();
        return server.cache(IgniteStore.DEFAULT_CACHE_NAME).containsKey(key);
    }

    @Override
    protected Optional<PreviousFormat> previousFormat(Store store) {
        // KeyState format 1 is the current one until a version 2 replaces it.
        return Optional.of(PreviousFormat.read(1, (key, states, nowMicros) -> {
            startCluster();
            server.<String, byte[]>cache(IgniteStore.DEFAULT_CACHE_NAME).put(key, KeyStateFormats.version1(states));
        }));
    }

    @Override
    protected Store createStore(VirtualClock clock) {
        startCluster();
        return IgniteStore.builder(server).clockForTesting(clock).timeout(Duration.ofSeconds(10)).build();
    }

    @Override
    protected Store createStore() {
        startCluster();
        return IgniteStore.builder(client).timeout(Duration.ofSeconds(10)).build();
    }
}
