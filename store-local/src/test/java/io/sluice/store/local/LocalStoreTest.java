package io.sluice.store.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LocalStoreTest {

    private static final long START_MICROS = 1_767_225_600_000_000L;

    private final VirtualClock clock = new VirtualClock(START_MICROS);

    @Test
    void stateExpiresAtTheMicrosecondItsLimitIsFullyReset() {
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
            Decision decision = store.tryAcquire("client", List.of(limit), 10).toCompletableFuture().join();
            assertThat(decision.resetAfter()).isEqualTo(Duration.ofSeconds(1));

            clock.advanceMicros(999_999);
            assertThat(holds(store, "client")).isTrue();
            clock.advanceMicros(1);
            assertThat(holds(store, "client")).isFalse();
        }
    }

    @Test
    void anEntryOutlivesItsResetByOnePeriodAfterItsLastAdmissionAndDecidesAsAFreshOne() {
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1));
            Decision first = store.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join();
            assertThat(first.resetAfter()).isEqualTo(Duration.ofMillis(10));

            clock.advance(Duration.ofMillis(600));
            assertThat(holds(store, "client")).as("reset, but admitted within its period").isTrue();
            Decision again = store.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join();
            assertThat(again).as("decided as on an unused key").isEqualTo(first);

            clock.advance(Duration.ofMillis(999));
            assertThat(holds(store, "client")).as("kept a period after its last admission").isTrue();
            clock.advance(Duration.ofMillis(1));
            assertThat(holds(store, "client")).isFalse();
        }
    }

    @Test
    void aDecisionWithLessThanHalfAPeriodLeftKeepsTheEntryOnePeriodFromThen() {
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 1, Duration.ofSeconds(1));
            assertThat(store.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join().allowed()).isTrue();

            clock.advance(Duration.ofMillis(600));
            Decision denied = store.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join();
            assertThat(denied.allowed()).isFalse();

            clock.advance(Duration.ofMillis(999));
            assertThat(holds(store, "client")).as("kept a period after its last decision, a denial").isTrue();
            clock.advance(Duration.ofMillis(1));
            assertThat(holds(store, "client")).isFalse();
        }
    }

    @Test
    void anIdleKeyIsFreedThreeQuartersToOnePeriodAfterItsLastRequest() {
        // Requests 37 ms apart, stopping at every phase of the quarter-period reads: admitted
        // ones (100 per second), then mostly lock-free denials (1 per second).
        for (long permits : new long[] {100, 1}) {
            Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, permits, Duration.ofSeconds(1));
            for (int requests = 1; requests <= 60; requests++) {
                try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
                    for (int i = 0; i < requests; i++) {
                        if (i > 0) {
                            clock.advance(Duration.ofMillis(37));
                        }
                        store.tryAcquireAndWait("client", List.of(limit), 1);
                    }
                    clock.advance(Duration.ofMillis(750));
                    assertThat(holds(store, "client")).as("%d per second, %d requests: kept 3/4 period", permits,
                            requests).isTrue();
                    clock.advance(Duration.ofMillis(250));
                    assertThat(holds(store, "client")).as("%d per second, %d requests: freed after a period",
                            permits, requests).isFalse();
                }
            }
        }
    }

    @Test
    void aKeyOfALongPeriodIsFreedAtMostASecondBeforeItsPeriodEndsAfterItsLastRequest() {
        Limit limit = Limit.of(Algorithms.GCRA, 1_000_000, Duration.ofDays(1));
        for (int requests = 1; requests <= 12; requests++) {
            try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
                for (int i = 0; i < requests; i++) {
                    // Each admission resets within a tenth of a second: only the reads keep the entry.
                    clock.advance(Duration.ofMillis(430));
                    assertThat(store.tryAcquireAndWait("client", List.of(limit), 1).allowed()).isTrue();
                }
                clock.advance(Duration.ofDays(1).minusSeconds(1));
                assertThat(holds(store, "client")).as("%d requests: kept a day less a second", requests).isTrue();
                clock.advance(Duration.ofSeconds(1));
                assertThat(holds(store, "client")).as("%d requests: freed after a day", requests).isFalse();
            }
        }
    }

    @Test
    void aBusyKeyKeepsItsEntryForManyPeriods() {
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1));
            // 50 ms apart for 10 s: the state is reset 10 ms after each request, so only the
            // recorded reads keep the entry, which must never be freed in between.
            for (int i = 0; i < 200; i++) {
                Decision decision = store.tryAcquireAndWait("client", List.of(limit), 1);
                assertThat(decision.allowed()).isTrue();
                assertThat(decision.remaining()).isEqualTo(99);
                clock.advance(Duration.ofMillis(50));
                assertThat(holds(store, "client")).as("after request %d", i).isTrue();
            }
        }
    }

    @Test
    void aKeyIsKeptUntilItsLastLimitIsReset() {
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            Limit shortLimit = Limit.of(Algorithms.SLIDING_LOG, 5, Duration.ofSeconds(1)).named("short");
            Limit longLimit = Limit.of(Algorithms.SLIDING_LOG, 5, Duration.ofSeconds(3)).named("long");
            store.tryAcquire("client", List.of(shortLimit, longLimit), 1).toCompletableFuture().join();

            clock.advance(Duration.ofSeconds(1));
            assertThat(holds(store, "client")).as("the short limit reset, the long one not").isTrue();
            clock.advance(Duration.ofSeconds(2));
            assertThat(holds(store, "client")).as("both limits reset").isFalse();
        }
    }

    @Test
    void holdsAtMostMaximumSizeKeys() {
        try (Store store = LocalStore.builder().maximumSize(100).clockForTesting(clock).build()) {
            Limit limit = Limit.of(Algorithms.FIXED_WINDOW, 10, Duration.ofDays(1));
            IntStream.range(0, 1_000).forEach(i ->
                    store.tryAcquire("client-" + i, List.of(limit), 1).toCompletableFuture().join());

            long held = IntStream.range(0, 1_000).filter(i -> holds(store, "client-" + i)).count();
            assertThat(held).isBetween(1L, 100L);
        }
    }

    @Test
    void anEvictedKeyStartsWithUnusedLimits() {
        try (Store store = LocalStore.builder().maximumSize(1).clockForTesting(clock).build()) {
            Limit limit = Limit.of(Algorithms.FIXED_WINDOW, 1, Duration.ofDays(1));
            assertThat(store.tryAcquire("first", List.of(limit), 1).toCompletableFuture().join().allowed()).isTrue();
            IntStream.range(0, 100).forEach(i ->
                    store.tryAcquire("other-" + i, List.of(limit), 1).toCompletableFuture().join());

            assertThat(holds(store, "first")).isFalse();
            // The documented cost of a maximum size below the active keys: the limit restarts.
            assertThat(store.tryAcquire("first", List.of(limit), 1).toCompletableFuture().join().allowed()).isTrue();
        }
    }

    @Test
    void statesItsCapabilities() {
        try (Store store = LocalStore.builder().build()) {
            assertThat(store.capabilities()).isEqualTo(new StoreCapabilities(true, true, true, true, true));
        }
    }

    @Test
    void aClosedStoreFailsRatherThanDecides() {
        Store store = LocalStore.builder().clockForTesting(clock).build();
        Limit limit = Limit.of(Algorithms.GCRA, 10, Duration.ofSeconds(1));
        store.close();

        assertThatThrownBy(() -> store.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join())
                .isInstanceOf(CompletionException.class).hasCauseInstanceOf(StoreUnavailableException.class);
        assertThatThrownBy(() -> store.tryAcquireAndWait("client", List.of(limit), 1))
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("closed");
    }

    @Test
    void decidesOnTheCallingThreadAsItsStagesDo() {
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            Limit limit = Limit.of(Algorithms.GCRA, 2, Duration.ofSeconds(1));
            assertThat(store.tryAcquireAndWait("client", List.of(limit), 1).allowed()).isTrue();
            assertThat(store.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join().allowed()).isTrue();
            Decision denied = store.tryAcquireAndWait("client", List.of(limit), 1);
            assertThat(denied.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
            assertThat(store.tryAcquire("client", List.of(limit), 1).toCompletableFuture().join()).isEqualTo(denied);
            assertThatThrownBy(() -> store.tryAcquireAndWait("client", List.of(), 1))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void rejectsBadOptions() {
        assertThatThrownBy(() -> LocalStore.builder().maximumSize(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
        assertThatThrownBy(() -> LocalStore.builder().clockForTesting(null))
                .isInstanceOf(NullPointerException.class);
    }

    private static boolean holds(Store store, String key) {
        return ((CaffeineStore) store).holdsEntryFor(key);
    }
}
