package io.sluice.gateway;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** A store that counts the decisions it is asked for: the "store calls per request" figure. */
final class CountingStore implements Store {

    private final Store store;
    // The simulation calls from one thread, so a plain field is enough.
    private long applyCalls;

    CountingStore(Store store) {
        this.store = store;
    }

    /** How many times {@link #tryAcquire} was called. */
    long applyCalls() {
        return applyCalls;
    }

    @Override
    public StoreCapabilities capabilities() {
        return store.capabilities();
    }


    @Override

    public boolean supports(Algorithm algorithm) {

        return store.supports(algorithm);

    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        applyCalls++;
        return store.tryAcquire(key, limits, cost);
    }

    @Override
    public void close() {
        store.close();
    }
}
