package io.sluice.gateway;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.RateLimiterBuilder;
import io.sluice.core.LeasePolicy;
import io.sluice.core.StoreGuard;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.IntSupplier;

/**
 * Runs simulated traffic through a fleet of gateway instances in virtual time: each client
 * sends Poisson arrivals, the balancer hands each request to an instance, and the instance's
 * rate limiter decides it on the store. One thread, one clock that jumps from arrival to
 * arrival, so a seed fixes every figure.
 */
final class Simulation {

    /** When simulated traffic starts: 2026-01-01T00:00:00Z, on every epoch-aligned window boundary up to a day. */
    static final long START_MICROS = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond() * 1_000_000L;

    private Simulation() {
    }

    /**
     * Runs the traffic of {@code settings} under {@code algorithm}. The same settings give
     * the same arrivals and balancer choices for every algorithm.
     *
     * @throws IllegalStateException when the store fails to decide a request
     */
    static SimulationResult run(SimulationSettings settings, Algorithm algorithm) {
        Limit limit = settings.limit(algorithm);
        SimulatedClock clock = new SimulatedClock(START_MICROS);
        SplittableRandom seeds = new SplittableRandom(settings.seed());
        IntSupplier balancer = settings.balancer().picker(settings.instances(), seeds.split());
        PriorityQueue<ClientTraffic> arrivals = new PriorityQueue<>(
                Comparator.comparingLong(ClientTraffic::nextArrivalMicros).thenComparingInt(ClientTraffic::index));
        List<ClientTraffic> clients = new ArrayList<>(settings.clients());
        for (int i = 0; i < settings.clients(); i++) {
            ClientTraffic client = new ClientTraffic(i, seeds.split(), settings.ratePerSecond(), START_MICROS,
                    Ideal.exactLimiter(limit));
            clients.add(client);
            arrivals.add(client);
        }
        long endMicros = START_MICROS + settings.durationMicros();
        List<CountingStore> stores = new ArrayList<>();
        try {
            List<RateLimiter> instances = new ArrayList<>(settings.instances());
            for (int i = 0; i < settings.instances(); i++) {
                if (settings.perInstance() || stores.isEmpty()) {
                    stores.add(new CountingStore(settings.store().open(clock)));
                }
                RateLimiterBuilder builder = RateLimiter.builder().limit(limit).store(stores.get(stores.size() - 1));
                if (settings.leaseShare() > 0) {
                    builder.layer(StoreGuard.custom().clockForTesting(clock)
                            .leasing(LeasePolicy.custom().share(settings.leaseShare())
                                    .lengthShare(settings.leaseLength()).build()).build());
                }
                instances.add(builder.build());
            }
            while (!arrivals.isEmpty() && arrivals.peek().nextArrivalMicros() < endMicros) {
                ClientTraffic client = arrivals.poll();
                clock.advanceTo(client.nextArrivalMicros());
                Decision decision = instances.get(balancer.getAsInt()).decideAsync(client.key(), 1)
                        .toCompletableFuture().join();
                if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE) {
                    throw new IllegalStateException("the " + settings.store().optionName()
                            + " store could not decide for " + client.key() + " at " + clock.nowMicros() + "us");
                }
                client.record(decision.allowed());
                arrivals.add(client);
            }
        } finally {
            stores.forEach(CountingStore::close);
        }
        long offered = 0;
        long admitted = 0;
        long idealAdmitted = 0;
        long over = 0;
        long under = 0;
        for (ClientTraffic client : clients) {
            offered += client.offered();
            admitted += client.admitted();
            idealAdmitted += client.ideal();
            over += Math.max(0, client.admitted() - client.ideal());
            under += Math.max(0, client.ideal() - client.admitted());
        }
        long storeCalls = stores.stream().mapToLong(CountingStore::applyCalls).sum();
        return new SimulationResult(algorithm.name(), offered, admitted, idealAdmitted, storeCalls, over, under);
    }
}
