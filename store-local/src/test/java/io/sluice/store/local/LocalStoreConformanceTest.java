package io.sluice.store.local;

import io.sluice.api.Store;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;

/**
 * The conformance kit on the local store. It declares no previous stored-state format: its
 * state lives only as long as its process, so no version ever reads another's.
 */
class LocalStoreConformanceTest extends StoreConformance {

    @Override
    protected Store createStore(VirtualClock clock) {
        return LocalStore.builder().clockForTesting(clock).build();
    }

    @Override
    protected Store createStore() {
        return LocalStore.builder().build();
    }

    @Override
    protected boolean holdsAnythingFor(Store store, String key) {
        return ((CaffeineStore) store).holdsEntryFor(key);
    }
}
