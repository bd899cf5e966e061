package io.sluice.core;

import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;

class PolicyLimiterLocalTest extends PolicyLimiterContract {

    @Override
    protected Store createStore(VirtualClock clock) {
        return LocalStore.builder().clockForTesting(clock).build();
    }
}
