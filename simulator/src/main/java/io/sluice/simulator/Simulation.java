package io.sluice.simulator;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.RateLimiterBuilder;
import io.sluice.api.Store;
import io.sluice.core.StoreGuard;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.IntSupplier;

/**
 * Runs simulated traffic through a fleet of gateway instances in virtual time: each client
 * sends Poisson arrivals, the balancer hands each request to an instance, and the instance's
 * rate limiter decides it on the store, through {@code sluice-core}'s request path (block
 * cache, circuit breaker, failure policy with its in-process fallback). One thread, one clock
 * that jumps from arrival to arrival and drives the stores and that path alike, so a seed
 * fixes every figure.
 */
final class Simulation {

    /** When simulated traffic starts: 2026-01-01T00:00:00Z, on every epoch-aligned window boundary up to a day. */
    static final long START_MICROS = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond() * 1_000_000L;

    private Simulation() {
    }

    /**
     * Runs the traffic of {@code settings} under {@code algorithm} on stores from {@code backend}.
     * The same settings give the same arrivals and balancer choices for every algorithm. The
     * clients' keys start with a prefix of this run's own, so that runs on one shared store
     * never see each other's state.
     */
    static SimulationResult run(SimulationSettings settings, StoreBackend backend, Algorithm algorithm) {
        List<Limit> limits = settings.limits(algorithm);
        List<Limit> exactLimits = Ideal.exactLimiters(limits);
        SimulatedClock clock = new SimulatedClock(START_MICROS);
        SplittableRandom seeds = new SplittableRandom(settings.seed());
        IntSupplier balancer = settings.balancer().picker(settings.instances(), seeds.split());
        PriorityQueue<ClientTraffic> arrivals = new PriorityQueue<>(
                Comparator.comparingLong(ClientTraffic::nextArrivalMicros).thenComparingInt(ClientTraffic::index));
        String keyPrefix = "simulate-" + UUID.randomUUID().toString().substring(0, 8) + ":";
        List<ClientTraffic> clients = new ArrayList<>(settings.clients());
        for (int i = 0; i < settings.clients(); i++) {
            ClientTraffic client = new ClientTraffic(i, keyPrefix, seeds.split(), settings.ratePerSecond(),
                    START_MICROS, exactLimits);
            clients.add(client);
            arrivals.add(client);
        }
        Outage outage = settings.outage();
        long endMicros = START_MICROS + settings.durationMicros();
        long unavailableOutsideOutage = 0;
        long offeredInOutage = 0;
        Map<Decision.Reason, Long> admittedInOutage = new EnumMap<>(Decision.Reason.class);
        Map<Decision.Reason, Long> deniedInOutage = new EnumMap<>(Decision.Reason.class);
        // Each instance reaches its store through a counter and, in an outage, a failing store of
        // its own (so that each instance's return to the store is seen), then its own guard:
        // block cache, circuit breaker and failure policy, as a gateway instance has.
        StoreGuard guard = StoreGuard.custom()
                .instances(settings.instancesPerStore())
                .blockCacheSize(settings.blockCache() ? StoreGuard.DEFAULT_BLOCK_CACHE_SIZE : 0)
                .timeout(StoreBackend.CALL_TIMEOUT)
                .storeName(settings.store().optionName())
                .clockForTesting(clock)
                .build();
        List<Store> stores = new ArrayList<>();
        List<CountingStore> counters = new ArrayList<>();
        List<OutageStore> failingStores = new ArrayList<>();
        try {
            List<RateLimiter> instances = new ArrayList<>(settings.instances());
            for (int i = 0; i < settings.instances(); i++) {
                if (settings.perInstance() || stores.isEmpty()) {
                    stores.add(backend.open(clock));
                }
                Store store = stores.get(stores.size() - 1);
                if (outage != null) {
                    OutageStore failing = new OutageStore(store, clock, START_MICROS, outage);
                    failingStores.add(failing);
                    store = failing;
                }
                CountingStore counter = new CountingStore(store);
                counters.add(counter);
                RateLimiterBuilder builder = RateLimiter.builder();
                limits.forEach(builder::limit);
                instances.add(builder.store(counter).failurePolicy(settings.failurePolicy()).layer(guard).build());
            }
            while (!arrivals.isEmpty() && arrivals.peek().nextArrivalMicros() < endMicros) {
                ClientTraffic client = arrivals.poll();
                clock.advanceTo(client.nextArrivalMicros());
                Decision decision = instances.get(balancer.getAsInt()).decideAsync(client.key(), 1)
                        .toCompletableFuture().join();
                if (outage != null && outage.covers(clock.nowMicros() - START_MICROS)) {
                    offeredInOutage++;
                    (decision.allowed() ? admittedInOutage : deniedInOutage).merge(decision.reason(), 1L, Long::sum);
                } else if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE
                        || decision.reason() == Decision.Reason.FALLBACK) {
                    unavailableOutsideOutage++;
                }
                client.record(decision.allowed());
                arrivals.add(client);
            }
        } finally {
            // The stores themselves: the wrappers of a shared store would close it once per instance.
            stores.forEach(Store::close);
        }
        long offered = 0;
        long admitted = 0;
        long idealAdmitted = 0;
        long overAdmitted = 0;
        for (ClientTraffic client : clients) {
            offered += client.offered();
            admitted += client.admitted();
            idealAdmitted += client.ideal();
            overAdmitted += client.overAdmitted();
        }
        long storeCalls = counters.stream().mapToLong(CountingStore::calls).sum();
        SimulationResult.OutageFigures outageFigures = outage == null ? null
                : new SimulationResult.OutageFigures(offeredInOutage, admittedInOutage, deniedInOutage,
                        storeBackAfterMicros(failingStores));
        return new SimulationResult(algorithm.name(), offered, admitted, idealAdmitted, overAdmitted, storeCalls,
                unavailableOutsideOutage, outageFigures);
    }

    // The latest of the instances' returns to the store: when every instance used it again.
    private static long storeBackAfterMicros(List<OutageStore> stores) {
        long latest = OutageStore.NOT_BACK;
        for (OutageStore store : stores) {
            long back = store.storeBackAfterMicros();
            if (back == OutageStore.NOT_BACK) {
                return OutageStore.NOT_BACK;
            }
            latest = Math.max(latest, back);
        }
        return latest;
    }
}
