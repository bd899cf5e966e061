package io.sluice.simulator;

import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.RateLimiterBuilder;
import io.sluice.api.Store;
import io.sluice.core.LeasePolicy;
import io.sluice.core.StoreGuard;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The simulated gateway instances of one run and their stores. Each instance reaches its store
 * (the shared one, or its own) through a counter and, in an outage, a failing store of its own
 * (so that each instance's return to the store is seen), then through its own guard from
 * {@code sluice-core}: block cache, circuit breaker and failure policy, as a gateway has.
 */
final class Fleet implements AutoCloseable {

    private final List<Store> stores = new ArrayList<>();
    private final List<CountingStore> counters = new ArrayList<>();
    private final List<OutageStore> failingStores = new ArrayList<>();
    private final List<RateLimiter> instances = new ArrayList<>();

    /** Opens the stores of {@code settings} from {@code backend} and builds the instances on them. */
    Fleet(SimulationSettings settings, StoreBackend backend, SimulatedClock clock, List<Limit> limits) {
        StoreGuard.Builder guardBuilder = StoreGuard.custom();
        if (settings.leaseShare() > 0) {
            guardBuilder.leasing(LeasePolicy.custom().share(settings.leaseShare()).build());
        }
        StoreGuard guard = guardBuilder
                .instances(settings.instancesPerStore())
                .blockCacheSize(settings.blockCache() ? StoreGuard.DEFAULT_BLOCK_CACHE_SIZE : 0)
                .timeout(StoreBackend.CALL_TIMEOUT)
                .storeName(settings.store().optionName())
                .clockForTesting(clock)
                .build();
        Outage outage = settings.outage();
        try {
            for (int i = 0; i < settings.instances(); i++) {
                if (settings.perInstance() || stores.isEmpty()) {
                    stores.add(backend.open(clock));
                }
                instances.add(instance(stores.get(stores.size() - 1), outage, clock, limits, settings, guard));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private RateLimiter instance(Store store, @Nullable Outage outage, SimulatedClock clock, List<Limit> limits,
                                 SimulationSettings settings, StoreGuard guard) {
        Store reached = store;
        if (outage != null) {
            OutageStore failing = new OutageStore(store, clock, Simulation.START_MICROS, outage);
            failingStores.add(failing);
            reached = failing;
        }
        CountingStore counter = new CountingStore(reached);
        counters.add(counter);
        RateLimiterBuilder builder = RateLimiter.builder();
        limits.forEach(builder::limit);
        return builder.store(counter).failurePolicy(settings.failurePolicy()).layer(guard).build();
    }

    /** The instance numbered {@code index}, from 0. */
    RateLimiter instance(int index) {
        return instances.get(index);
    }

    /** Calls that reached the stores, over all instances. */
    long storeCalls() {
        return counters.stream().mapToLong(CountingStore::calls).sum();
    }

    /**
     * When every instance had used the store again after the outage: the latest of their first
     * store decisions after it, from its end; {@link OutageStore#NOT_BACK} when one made none.
     */
    long storeBackAfterMicros() {
        long latest = OutageStore.NOT_BACK;
        for (OutageStore store : failingStores) {
            long back = store.storeBackAfterMicros();
            if (back == OutageStore.NOT_BACK) {
                return OutageStore.NOT_BACK;
            }
            latest = Math.max(latest, back);
        }
        return latest;
    }

    /** Closes the stores themselves: the wrappers of a shared store would close it once per instance. */
    @Override
    public void close() {
        stores.forEach(Store::close);
    }
}
