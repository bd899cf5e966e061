package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Local quota leasing in the guard's chain, on a real local store under a virtual clock: sizing, expiry, return. */
class LeasingTest {

    /** 1 token a second, burst 100: nothing refills within a test's few seconds unless it waits. */
    private static final Limit SLOW = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(100)).withBurst(100)
            .named("slow");
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
            assertThat(decide(guarded, SLOW).allowed()).isTrue();
        }
        // Three requests alone (below 4 tokens per lease length), then leases of 4 and 8 (the tokens
        // asked so far), then 10 (10% of 100).
        assertThat(store.calls()).isEqualTo(6);
        assertThat(count(StoreGuard.LEASE_REFILLS, "outcome", "granted")).isEqualTo(3);
        assertThat(count(StoreGuard.LEASE_DECISIONS)).isEqualTo(10);
        assertThat(storeRemainingAfterOne(SLOW)).isEqualTo(100 - 3 - 4 - 8 - 10 - 1);
        for (int i = 0; i < 30; i++) {
            decide(guarded, SLOW);
        }
        assertThat(store.calls()).as("30 more requests: the 9 left, then leases of 10").isEqualTo(6 + 3);
    }

    @Test
    void aRarelySeenKeyIsNotLeased() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        // One request per lease length (a tenth of 100 s): below 2 tokens per lease length.
        for (int i = 0; i < 20; i++) {
            assertThat(decide(guarded, SLOW).allowed()).isTrue();
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(store.calls()).isEqualTo(20);
        assertThat(count(StoreGuard.LEASE_REFILLS, "outcome", "granted")).isZero();
    }

    @Test
    void aLeaseEndsAtItsLengthAndItsUnusedTokensGoBackLessTheRefillMeanwhile() {
        // A tenth of a token a second; leases last 10 s (1% of the period).
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
        // Give-back and a new lease of 9 (18 tokens in the last lease length, averaged with none).
        assertThat(store.calls()).isEqualTo(calls + 2);
        // 3 + 22 leased, 1.1 refilled in 11 s, 7 - 1.1 taken back (the refill a bucket without the lease may have
        // wasted at its capacity is not), 9 leased, then one more.
        assertThat(storeRemainingAfterOne(slower)).isEqualTo(100 - 25 + 7 - 9 - 1);
    }

    @Test
    void aWindowsLeaseEndsWithItsWindow() {
        GuardedStore guarded = guarded(LeasePolicy.custom().lengthShare(1).build());
        clock.advance(Duration.ofMillis(900));
        for (int i = 0; i < 16; i++) {
            decide(guarded, WINDOW);
        }
        long calls = store.calls();
        // The lease of 10 has 9 left, and its length is a whole second: the window ends first.
        clock.advance(Duration.ofMillis(150));
        decide(guarded, WINDOW);
        assertThat(store.calls()).as("the first request of the next window asks the store").isGreaterThan(calls);
        assertThat(count(StoreGuard.LEASE_DECISIONS)).isEqualTo(10);
        // Tokens of the old window cannot go back to the new one: nothing was returned there.
        assertThat(storeRemainingAfterOne(WINDOW)).isLessThan(100 - 1);
    }

    @Test
    void closingGivesEveryLeaseBack() {
        GuardedStore guarded = guarded(LeasePolicy.ofDefaults());
        for (int i = 0; i < 17; i++) {
            decide(guarded, SLOW);
        }
        guarded.close();
        assertThat(count(StoreGuard.LEASE_RETURNED_TOKENS, "outcome", "returned")).isEqualTo(8);
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
        List<GuardedStore> instances = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            instances.add(StoreGuard.custom().clockForTesting(clock).leasing(LeasePolicy.ofDefaults())
                    .blockCacheSize(0).build().guard(store));
        }
        // 10 windows of a second, 500 requests each, round robin: the window admits 100 of them.
        for (int window = 0; window < 10; window++) {
            long admitted = 0;
            for (int i = 0; i < 500; i++) {
                clock.advanceMicros(1_999);
                admitted += decide(instances.get(i % 5), WINDOW).allowed() ? 1 : 0;
            }
            clock.advanceMicros(500);
            assertThat(admitted).as("window %d", window).isLessThanOrEqualTo(100).isGreaterThanOrEqualTo(90);
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
