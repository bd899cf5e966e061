package io.sluice.simulator;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A store that counts the calls it gets (decisions, and leases taken or given back): the
 * "store calls per request" figure.
 */
final class CountingStore implements Store {

    private final Store store;
    // The simulation calls from one thread, so a plain field is enough.
    private long calls;

    CountingStore(Store store) {
        this.store = store;
    }

    /** How many calls reached the store. */
    long calls() {
        return calls;
    }

    /**
     * The store's, but never in process: the simulation's local store stands for a shared one
     * (and can be taken down), so each instance's guard runs its whole chain on it, block cache
     * and breaker included, as it would on Redis.
     */
    @Override
    public StoreCapabilities capabilities() {
        StoreCapabilities own = store.capabilities();
        return new StoreCapabilities(own.serverClock(), own.atomicMultiLimit(), own.expiry(), own.leasing(), false);
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return store.supports(algorithm);
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        calls++;
        return store.tryAcquire(key, limits, cost);
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        calls++;
        return store.lease(key, limits, maxTokens);
    }

    @Override
    public CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        calls++;
        return store.giveBack(key, limits, lease, unusedTokens);
    }

    @Override
    public void close() {
        store.close();
    }
}
