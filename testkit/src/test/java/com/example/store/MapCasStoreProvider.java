package com.example.store;

import io.sluice.api.Store;
import io.sluice.api.StoreProvider;
import io.sluice.api.TimeSource;

// tag::provider[]
/** Creates the map store: how the benchmarks (and a builder given no store) make one. */
public final class MapCasStoreProvider implements StoreProvider {

    @Override
    public Store create() {
        return new MapCasStore(TimeSource.system());
    }
}
// end::provider[]
