package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.store.local.LocalStore;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Local quota leasing in the guard's chain, on a real local store under a virtual clock: sizing, expiry, return. */
class LeasingTest {

    /** 1 token a second, burst 100: nothing refills within a test's few seconds unless it waits. */
    private static final Limit SLOW = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(100)).withBurst(100)
            .named("slow");
    /** 100 per 100 s, from a window's start: nothing resets within a test unless it waits. */
    private static final Limit LONG_WINDOW = Limit.of(Algorithms.FIXED_WINDOW, 100, Duration.ofSeconds(100))
            .named("long-window");
    private static final Limit WINDOW = Limit.of(Algorithms.FIXED_WINDOW, 100, Duration.ofSeconds(1)).named("window");
    private static final Limit LOG = Limit.of(Algorithms.SLIDING_LOG, 100, Duration.ofSeconds(1)).named("log");

    /** On a second boundary, so that windows start at known times. */
    private final VirtualClock clock = new VirtualClock(1_700_000_000_000_000L);
    private final Store local = LocalStore.builder().clockForTesting(clock).build();
    private final OutageStore store = new OutageStore(local);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void closeStore() {
        store.close();
    }

    private GuardedStore guarded(LeasePolicy policy) {
        return StoreGuard.custom().clockForTesting(clock).meterRegistry(registry).storeName("test").leasing(policy)
                .build().guard(store);
    }

    private static Decision decide(GuardedStore guarded, Limit limit) {
        return guarded.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join();
    }

    /** What the store itself has left of the limit, after one more token. */
    private long storeRemainingAfterOne(Limit limit) {
        return local.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join().remaining();
    }

    private double count(String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void batchesGrowWithTheKeysRateUpToTheShareOfTheLimit() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        for (int i = 0; i < 16; i++) {
            assertThat(decide(guarded, LONG_WINDOW).allowed()).isTrue();
        }
        // One request alone (below 2 tokens per longest lease), then leases of 2, 4 and 8 (the
        // tokens asked so far), then 10 (10% of 100).
        assertThat(store.calls()).isEqualTo(5);
        assertThat(count(StoreGuard.LEASE_REFILLS, "outcome", "granted")).isEqualTo(4);
        assertThat(count(StoreGuard.LEASE_DECISIONS)).isEqualTo(11);
        assertThat(storeRemainingAfterOne(LONG_WINDOW)).isEqualTo(100 - 1 - 2 - 4 - 8 - 10 - 1);
        for (int i = 0; i < 30; i++) {
            decide(guarded, LONG_WINDOW);
        }
        assertThat(store.calls()).as("30 more requests: the 9 left, then leases of 10").isEqualTo(5 + 3);
    }

    @Test
    void aRarelySeenKeyIsNotLeased() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        // One request per 110 s: below 2 tokens per longest lease (the period, 100 s).
        for (int i = 0; i < 20; i++) {
            assertThat(decide(guarded, SLOW).allowed()).isTrue();
            clock.advance(Duration.ofSeconds(110));
        }
        assertThat(store.calls()).isEqualTo(20);
        assertThat(count(StoreGuard.LEASE_REFILLS, "outcome", "granted")).isZero();
    }

    @Test
    void aKeySpreadThinIsLeasedForTheTokensItsRateAsksForInTheLeasesLife() {
        // The mission's tier seen by one of 20 instances: a client's 300 requests a second are 15 here.
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        for (int i = 0; i < 15; i++) {
            decide(guarded, WINDOW);
            clock.advanceMicros(66_667);
        }
        long calls = store.calls();
        // 15 tokens a second: each window, a lease of 10 (the cap), then of what the rest of the window
        // needs, rounded down (4), then of the last request's token.
        for (int i = 0; i < 150; i++) {
            assertThat(decide(guarded, WINDOW).allowed()).isTrue();
            clock.advanceMicros(66_667);
        }
        assertThat(store.calls() - calls).as("store calls for 150 requests in 10 windows").isEqualTo(30);
        assertThat(count(StoreGuard.LEASE_RETURNED_TOKENS, "outcome", "returned")).isZero();
    }

    @Test
    void aBucketFarFromDrainedIsLeasedForTheTimeItWouldTakeToRefill() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        for (int i = 0; i < 16; i++) {
            assertThat(decide(guarded, SLOW).allowed()).isTrue();
        }
        // A lease of 2 left the bucket 3 s from full, a few hundredths of the key's 100 s horizon: later
        // batches are what the key asks for in the time the bucket takes to refill what is out, one
        // token each until the 15th request's two, so that none is held while the bucket refills.
        assertThat(store.calls()).isEqualTo(1 + 1 + 12);
        assertThat(storeRemainingAfterOne(SLOW)).isEqualTo(100 - 16 - 1);
        guarded.close();
        assertThat(count(StoreGuard.LEASE_RETURNED_TOKENS, "outcome", "returned")).isZero();
    }

    @Test
    void aKeyAskingFasterThanItsBucketRefillsIsLeasedInGrowingBatches() {
        // A token every 100 s, burst 100: 16 requests at once ask faster than that.
        Limit trickle = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1_000)).withBurst(100)
                .named("trickle");
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        for (int i = 0; i < 16; i++) {
            assertThat(decide(guarded, trickle).allowed()).isTrue();
        }
        // One request alone; while the key has asked fewer than 10 tokens in the horizon (1,000 s) it
        // asks slower than the bucket refills, and batches are sized for the time the bucket takes to
        // refill what is out (2, 1, 2, 4); from the 11th request it asks faster: a full batch of 10.
        assertThat(store.calls()).isEqualTo(6);
        assertThat(storeRemainingAfterOne(trickle)).isEqualTo(100 - 1 - 2 - 1 - 2 - 4 - 10 - 1);
        for (int i = 0; i < 24; i++) {
            decide(guarded, trickle);
        }
        assertThat(store.calls()).as("24 more requests: the 4 left, then two batches of 10").isEqualTo(6 + 2);
    }

    @Test
    void aKeyAboveItsRateIsDeniedFromItsLeasesNeverOverAdmittedAndLittleUnderAdmitted() {
        // 10 tokens a second, from an empty bucket; the key asks 15 a second.
        Limit bucket = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)).withBurst(100).named("bucket");
        for (int i = 0; i < 100; i++) {
            storeRemainingAfterOne(bucket);
        }
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        long admitted = 0;
        for (int i = 0; i < 150; i++) {
            admitted += decide(guarded, bucket).allowed() ? 1 : 0;
            clock.advanceMicros(66_667);
        }
        // 10 s refilled 100 tokens: never more admitted; the last lease's tokens and its refill at most fewer.
        assertThat(admitted).isBetween(100L - 10 - 10, 100L);
        // Leases granted short of the 10 asked deny the key's requests beyond them until they end.
        assertThat(store.calls()).as("store calls for 150 requests").isLessThanOrEqualTo(150 / 10 + 5);
        assertThat(count(StoreGuard.LEASE_DECISIONS)).isGreaterThan(150 - admitted);
    }

    @Test
    void aLeaseEndsAtItsLengthAndItsUnusedTokensGoBackLessTheRefillMeanwhile() {
        // A tenth of a token a second; leases last at most 10 s (1% of the period).
        Limit slower = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1_000)).withBurst(100).named("slower");
        GuardedStore guarded = guarded(LeasePolicy.custom().lengthShare(0.01).build());
        for (int i = 0; i < 18; i++) {
            decide(guarded, slower);
        }
        // The lease of 10 taken by the 16th request has 7 left.
        clock.advance(Duration.ofSeconds(11));
        long calls = store.calls();
        assertThat(decide(guarded, slower).allowed()).isTrue();
        assertThat(count(StoreGuard.LEASE_RETURNED_TOKENS, "outcome", "returned")).isEqualTo(7);
        // Give-back and a new lease of 10 (18 tokens in the last 10 s).
        assertThat(store.calls()).isEqualTo(calls + 2);
        // 1 + 24 leased, 1.1 refilled in 11 s, 7 - 1.1 taken back (the refill a bucket without the lease may have
        // wasted at its capacity is not), 10 leased, then one more.
        assertThat(storeRemainingAfterOne(slower)).isEqualTo(100 - 25 + 7 - 10 - 1);
    }

    @Test
    void aWindowsLeaseEndsWithItsWindow() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        clock.advance(Duration.ofMillis(500));
        for (int i = 0; i < 16; i++) {
            decide(guarded, WINDOW);
        }
        // Leases of the tokens the key's rate asks for in the half second its window has left, rounded
        // down: 1, 1, 2, 3, 4, 6.
        assertThat(store.calls()).isEqualTo(7);
        assertThat(count(StoreGuard.LEASE_DECISIONS)).isEqualTo(9);
        // The lease of 6 has 2 left; the window ends first.
        clock.advance(Duration.ofMillis(600));
        decide(guarded, WINDOW);
        assertThat(store.calls()).as("give-back, then a lease in the new window").isEqualTo(9);
        // The tokens of the old window did not go to the new one, which has the lease of 10 and one more.
        assertThat(storeRemainingAfterOne(WINDOW)).isEqualTo(100 - 10 - 1);
    }

    @Test
    void closingGivesEveryLeaseBack() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        for (int i = 0; i < 17; i++) {
            decide(guarded, LONG_WINDOW);
        }
        guarded.close();
        assertThat(count(StoreGuard.LEASE_RETURNED_TOKENS, "outcome", "returned")).isEqualTo(8);
    }

    @Test
    void withRefillAheadNoRequestOfABusyKeyWaitsForALeaseCall() {
        assertThat(requestsWaitingForALease(LeasePolicy.custom().refillAhead(true).build())).isZero();
        assertThat(store.calls()).as("a lease call per batch, no request sent to the store").isLessThan(30);
        assertThat(requestsWaitingForALease(LeasePolicy.ofDefaults())).as("without refill ahead").isPositive();
    }

    /**
     * Of 300 requests of a busy key, leased already, on a store whose lease calls answer only after
     * the request that made them (as a remote store's reply comes later), how many were not decided
     * at once.
     */
    private long requestsWaitingForALease(LeasePolicy policy) {
        Limit large = Limit.of(Algorithms.FIXED_WINDOW, 100_000, Duration.ofSeconds(100)).named("large");
        GuardedStore guarded = guarded(policy);
        for (int i = 0; i < 20; i++) {
            assertThat(decide(guarded, large).allowed()).isTrue();
        }
        store.holdLeases(true);
        long waiting = 0;
        for (int i = 0; i < 300; i++) {
            CompletableFuture<Decision> decision = guarded.tryAcquire("client", List.of(large), 1).toCompletableFuture();
            waiting += decision.isDone() ? 0 : 1;
            store.answerHeldLeases();
            assertThat(decision.join().allowed()).isTrue();
        }
        store.holdLeases(false);
        guarded.release();
        return waiting;
    }

    /**
     * A guard leasing ahead, under a name of its own (the log of other tests' guards may still be
     * on its way), with the key's leases taken by 16 requests, all admitted.
     */
    private GuardedStore leasingAheadNamed(String name) {
        GuardedStore guarded = StoreGuard.custom().clockForTesting(clock).meterRegistry(registry).storeName(name)
                .leasing(LeasePolicy.custom().refillAhead(true).build()).build().guard(store);
        for (int i = 0; i < 16; i++) {
            assertThat(decide(guarded, LONG_WINDOW).allowed()).isTrue();
        }
        return guarded;
    }

    @Test
    void aFailedLeaseAheadIsLogged() throws InterruptedException {
        try (LogCapture log = new LogCapture(StoreGuard.class.getName())) {
            GuardedStore guarded = leasingAheadNamed("ahead-failing");
            store.set(OutageStore.Mode.DOWN);
            for (int i = 0; i < 8; i++) {
                decide(guarded, LONG_WINDOW);
            }
            assertThat(log.await(record -> record.getMessage().startsWith("store ahead-failing could not lease ahead"),
                    1)).hasSize(1);
        }
    }

    @Test
    void aLeaseAheadSkippedWhileTheBreakerIsOpenIsSeenThroughTheBreaker() throws InterruptedException {
        try (LogCapture log = new LogCapture(StoreGuard.class.getName())) {
            GuardedStore guarded = leasingAheadNamed("ahead-skipped");
            // Another key's requests, not leased, open the breaker.
            store.set(OutageStore.Mode.DOWN);
            for (int i = 0; i < 10; i++) {
                guarded.tryAcquire("other", List.of(LOG), 1).toCompletableFuture().join();
            }
            assertThat(guarded.breakerState()).isEqualTo(CircuitBreaker.State.OPEN);
            long calls = store.calls();
            double leased = count(StoreGuard.LEASE_DECISIONS);

            // The key's leases, spent to the end: each one down to a quarter would have the next leased
            // ahead, and the breaker skips it; then the key's requests are short-circuited.
            for (int i = 0; i < 30; i++) {
                decide(guarded, LONG_WINDOW);
            }
            assertThat(store.calls()).as("no lease ahead reached the store").isEqualTo(calls);
            assertThat(count(StoreGuard.LEASE_DECISIONS)).isGreaterThan(leased);
            assertThat(count(StoreGuard.STORE_SHORT_CIRCUITED)).isPositive();
            assertThat(registry.get(StoreGuard.BREAKER_STATE).tags("store", "ahead-skipped", "state", "open").gauge()
                    .value()).isEqualTo(1);
            assertThat(log.await(record -> record.getMessage().startsWith(
                    "circuit breaker of store ahead-skipped opened"), 1)).hasSize(1);
            assertThat(log.records).noneMatch(record -> record.getMessage().contains("could not lease ahead"));
        }
    }

    @Test
    void withRefillAheadClosingGivesBothLeasesOfAKeyBack() {
        GuardedStore guarded = guarded(LeasePolicy.custom().refillAhead(true).build());
        for (int i = 0; i < 23; i++) {
            assertThat(decide(guarded, LONG_WINDOW).allowed()).isTrue();
        }
        guarded.release();
        assertThat(count(StoreGuard.LEASE_RETURNED_TOKENS, "outcome", "returned")).isPositive();
        assertThat(storeRemainingAfterOne(LONG_WINDOW)).as("every token held came back").isEqualTo(100 - 23 - 1);
    }

    @Test
    void instancesLeasingAheadFromOneStoreNeverAdmitMoreThanTheLimit() {
        fiveInstancesAdmitPerWindow(LeasePolicy.custom().refillAhead(true).build(), 95);
    }

    @Test
    void aSlidingLogGoesToTheStoreEveryTime() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        for (int i = 0; i < 30; i++) {
            decide(guarded, LOG);
        }
        assertThat(store.calls()).isEqualTo(30);
    }

    @Test
    void instancesLeasingFromOneStoreNeverAdmitMoreThanTheLimit() {
        fiveInstancesAdmitPerWindow(LeasePolicy.ofDefaults(), 90);
    }

    /**
     * Five instances leasing with {@code policy} from one store, 10 windows of a second, 500
     * requests each, round robin: each window admits at most the limit's 100 and at least
     * {@code atLeast}.
     */
    private void fiveInstancesAdmitPerWindow(LeasePolicy policy, long atLeast) {
        List<GuardedStore> instances = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            instances.add(StoreGuard.custom().clockForTesting(clock).leasing(policy).blockCacheSize(0).build()
                    .guard(store));
        }
        for (int window = 0; window < 10; window++) {
            long admitted = 0;
            for (int i = 0; i < 500; i++) {
                clock.advanceMicros(1_999);
                admitted += decide(instances.get(i % 5), WINDOW).allowed() ? 1 : 0;
            }
            clock.advanceMicros(500);
            assertThat(admitted).as("window %d", window).isLessThanOrEqualTo(100).isGreaterThanOrEqualTo(atLeast);
        }
    }

    @Test
    void aStoreDownDuringALeaseCallAnswersByTheFailurePolicy() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        decide(guarded, SLOW);
        store.set(OutageStore.Mode.DOWN);
        Decision decision = decide(guarded, SLOW);
        assertThat(decision.reason()).isEqualTo(Decision.Reason.STORE_UNAVAILABLE);
        store.set(OutageStore.Mode.UP);
        assertThat(decide(guarded, SLOW).allowed()).isTrue();
    }
}
