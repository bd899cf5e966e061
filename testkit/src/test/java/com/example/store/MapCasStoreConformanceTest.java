package com.example.store;

import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;

// tag::kit[]
class MapCasStoreConformanceTest extends StoreConformance {

    @Override
    protected Store createStore(VirtualClock clock) {      // decisions on the kit's clock
        return new MapCasStore(clock);
    }

    @Override
    protected Store createStore() {                        // the store's own clock
        return new MapCasStore(TimeSource.system());
    }

    @Override
    protected boolean holdsAnythingFor(Store store, String key) {
        return ((MapCasStore) store).holdsEntryFor(key);
    }
}
// end::kit[]
