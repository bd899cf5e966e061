package io.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class OutageTest {

    private static final long START = Simulation.START_MICROS;
    private static final List<Limit> LIMITS = List.of(Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1)));

    private static SimulationSettings settings(FailurePolicy failurePolicy) {
        return new SimulationSettings(20, StoreKind.LOCAL, false, Balancer.ROUND_ROBIN, 100, 100,
                Duration.ofSeconds(1), List.of(), 3, 400, Duration.ofSeconds(5), 11, failurePolicy,
                false, new Outage(1_000_000, 3_000_000));
    }

    private static SimulationResult run(SimulationSettings settings) {
        try (StoreBackend local = StoreKind.LOCAL.start(null)) {
            return Simulation.run(settings, local, Algorithms.TOKEN_BUCKET);
        }
    }

    @Test
    void theStoreFailsFromTheFirstMicrosecondOfTheWindowUntilItsEnd() {
        SimulatedClock clock = new SimulatedClock(START);
        try (Store store = new OutageStore(StoreKind.LOCAL.start(null).open(clock), clock, START,
                new Outage(1_000_000, 3_000_000))) {
            OutageStore outage = (OutageStore) store;
            clock.advanceTo(START + 999_999);
            assertThat(decide(store).allowed()).isTrue();
            clock.advanceTo(START + 1_000_000);
            assertThat(failure(store)).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("1s..3s");
            clock.advanceTo(START + 2_999_999);
            assertThat(failure(store)).isInstanceOf(StoreUnavailableException.class);
            assertThat(outage.storeBackAfterMicros()).isEqualTo(OutageStore.NOT_BACK);

            clock.advanceTo(START + 3_000_250);
            assertThat(decide(store).allowed()).isTrue();
            clock.advanceTo(START + 3_500_000);
            decide(store);

            assertThat(outage.storeBackAfterMicros()).isEqualTo(250);
        }
    }

    private static Decision decide(Store store) {
        return store.tryAcquire("k", LIMITS, 1).toCompletableFuture().join();
    }

    private static Throwable failure(Store store) {
        try {
            decide(store);
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("the store decided during the outage");
    }

    @Test
    void failClosedDeniesEveryRequestOfTheOutageAndNeverOverAdmits() {
        SimulationResult result = run(settings(FailurePolicy.FAIL_CLOSED));

        SimulationResult.OutageFigures outage = result.outage();
        assertThat(outage).isNotNull();
        // 3 clients x 400/s x 2 s of outage, Poisson.
        assertThat(outage.offered()).isBetween(2_200L, 2_600L);
        assertThat(outage.admitted()).isEmpty();
        assertThat(outage.denied()).containsOnlyKeys(Decision.Reason.STORE_UNAVAILABLE)
                .containsEntry(Decision.Reason.STORE_UNAVAILABLE, outage.offered());
        // Each instance's breaker waits 500 ms of virtual time before it probes the store again.
        assertThat(outage.storeBackAfterMicros()).isBetween(0L, 1_000_000L);
        assertThat(result.overAdmitted()).isZero();
        // The open breakers kept most of the outage's requests away from the failing store.
        assertThat(result.storeCalls()).isLessThan(result.offered() - outage.offered() / 2);
    }

    @Test
    void theFallbackAdmitsAboutTheLimitAcrossTheInstancesDuringTheOutage() {
        SimulationResult result = run(settings(FailurePolicy.FALLBACK));

        SimulationResult.OutageFigures outage = result.outage();
        assertThat(outage).isNotNull();
        assertThat(outage.admitted()).containsOnlyKeys(Decision.Reason.FALLBACK);
        assertThat(outage.denied()).containsOnlyKeys(Decision.Reason.FALLBACK);
        // Per client, 20 instances x a share of 5 per second (burst 5) over the 2 s outage: at most
        // the whole burst of 100 plus 200, and far more than nothing.
        assertThat(outage.admittedTotal()).isBetween(3 * 150L, 3 * 300L);
        assertThat(outage.storeBackAfterMicros()).isBetween(0L, 1_000_000L);
    }

    @Test
    void failOpenAdmitsEveryRequestOfTheOutageAndShowsTheOverAdmission() {
        SimulationResult result = run(settings(FailurePolicy.FAIL_OPEN));

        SimulationResult.OutageFigures outage = result.outage();
        assertThat(outage).isNotNull();
        assertThat(outage.denied()).isEmpty();
        assertThat(outage.admitted()).containsOnly(
                org.assertj.core.api.Assertions.entry(Decision.Reason.STORE_UNAVAILABLE, outage.offered()));
        // Of 2 s of 400/s per client, the limit allows about 200 per client: the rest is over-admitted.
        assertThat(result.overAdmitted()).isBetween(outage.offered() - 3 * 300L, outage.offered());
    }

    @Test
    void withoutAnOutageThereAreNoOutageFigures() {
        SimulationSettings withOutage = settings(FailurePolicy.FAIL_CLOSED);
        SimulationSettings without = new SimulationSettings(20, StoreKind.LOCAL, false, Balancer.ROUND_ROBIN, 100,
                100, Duration.ofSeconds(1), List.of(), 3, 400, Duration.ofSeconds(5), 11, FailurePolicy.FAIL_CLOSED,
                false, null);

        SimulationResult result = run(without);

        assertThat(result.outage()).isNull();
        assertThat(result.offered()).isEqualTo(run(withOutage).offered());
        assertThat(result.admitted()).isEqualTo(result.ideal());
    }
}
