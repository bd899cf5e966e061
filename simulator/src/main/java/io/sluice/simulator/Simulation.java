package io.sluice.simulator;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
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
import org.jspecify.annotations.Nullable;

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
        Tally tally = new Tally(outage);
        long storeCalls;
        long storeBackAfterMicros;
        try (Fleet fleet = new Fleet(settings, backend, clock, limits)) {
            while (!arrivals.isEmpty() && arrivals.peek().nextArrivalMicros() < endMicros) {
                ClientTraffic client = arrivals.poll();
                clock.advanceTo(client.nextArrivalMicros());
                Decision decision = fleet.instance(balancer.getAsInt()).decideAsync(client.key(), 1)
                        .toCompletableFuture().join();
                tally.record(clock.nowMicros() - START_MICROS, decision);
                client.record(decision.allowed());
                arrivals.add(client);
            }
            storeCalls = fleet.storeCalls();
            storeBackAfterMicros = fleet.storeBackAfterMicros();
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
        SimulationResult.OutageFigures outageFigures = outage == null ? null
                : new SimulationResult.OutageFigures(tally.offeredInOutage, tally.admittedInOutage,
                        tally.deniedInOutage, storeBackAfterMicros);
        return new SimulationResult(algorithm.name(), offered, admitted, idealAdmitted, overAdmitted, storeCalls,
                tally.unavailableOutsideOutage, outageFigures);
    }

    /** The decisions the outage figures count: those in the outage by reason, and the store's absences outside it. */
    private static final class Tally {
        private final @Nullable Outage outage;
        private long unavailableOutsideOutage;
        private long offeredInOutage;
        private final Map<Decision.Reason, Long> admittedInOutage = new EnumMap<>(Decision.Reason.class);
        private final Map<Decision.Reason, Long> deniedInOutage = new EnumMap<>(Decision.Reason.class);

        Tally(@Nullable Outage outage) {
            this.outage = outage;
        }

        void record(long offsetMicros, Decision decision) {
            if (outage != null && outage.covers(offsetMicros)) {
                offeredInOutage++;
                (decision.allowed() ? admittedInOutage : deniedInOutage).merge(decision.reason(), 1L, Long::sum);
            } else if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE
                    || decision.reason() == Decision.Reason.FALLBACK) {
                unavailableOutsideOutage++;
            }
        }
    }
}
