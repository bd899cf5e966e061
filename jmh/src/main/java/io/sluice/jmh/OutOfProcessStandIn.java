package io.sluice.jmh;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The local store declared out of process: the guard then runs its whole chain (block cache,
 * breaker, timeout) as for a shared store, on the cheapest store there is, where it calls a
 * store that decides in process directly. What the chain itself costs is measured on it.
 */
final class OutOfProcessStandIn implements Store {

    private final Store local;

    OutOfProcessStandIn(Store local) {
        this.local = local;
    }

    @Override
    public StoreCapabilities capabilities() {
        StoreCapabilities own = local.capabilities();
        return new StoreCapabilities(own.serverClock(), own.atomicMultiLimit(), own.expiry(), false, false);
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return local.supports(algorithm);
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        return local.tryAcquire(key, limits, cost);
    }

    @Override
    public void close() {
        local.close();
    }
}
