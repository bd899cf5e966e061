package io.sluice.store.local;

import io.sluice.api.Store;
import io.sluice.testkit.StoreConformance;
import io.sluice.testkit.VirtualClock;

class LocalStoreConformanceTest extends StoreConformance {

    @Override
    protected Store createStore(VirtualClock clock) {
        return LocalStore.builder().clockForTesting(clock).build();
    }

    @Override
    protected Store createStore() {
        return LocalStore.builder().build();
    }
}
