package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.algorithms.Leasing;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * The checks of {@link Store#lease} and {@link Store#giveBack} that {@link StoreConformance}
 * runs on every store whose capabilities say {@code leasing}: a lease is the largest batch every
 * limit admits, charged to all of them as one request of that cost would be (so it never
 * exceeds what the limits admit), exactly as {@link KeyState#lease} decides; concurrent leases
 * on one key never grant more than the capacity; tokens given back never let a key admit more
 * than if they had never been taken; a sliding-log limit is refused without a charge.
 */
final class LeaseConformance {

    /** What a step of a {@link Scenario} does with its cost. */
    enum Operation {
        /** A request of that cost. */
        REQUEST,
        /** A lease of at most that many tokens. */
        LEASE,
        /** Gives back up to that many of the key's last lease's tokens not yet given back. */
        GIVE_BACK
    }

    private static final int THREADS = 16;

    private final Store store;
    private final VirtualClock clock;
    private final Supplier<String> newKey;
    private final Function<CompletionStage<?>, Object> await;

    LeaseConformance(Store store, VirtualClock clock, Supplier<String> newKey,
                     Function<CompletionStage<?>, Object> await) {
        this.store = store;
        this.clock = clock;
        this.newKey = newKey;
        this.await = await;
    }

    /** Scenarios on leasable limits only, with an operation for each step. */
    static Arbitrary<ScenarioWithOperations> scenarios() {
        return Scenarios.withLimits(1, 3).filter(scenario -> Leasing.supportsAll(scenario.limits()))
                .flatMap(scenario -> Arbitraries.of(Operation.values()).list().ofSize(scenario.steps().size())
                        .map(operations -> new ScenarioWithOperations(scenario, operations)));
    }

    /** A generated try: the requests of a {@link Scenario}, each step a request, a lease or a give-back. */
    record ScenarioWithOperations(Scenario scenario, List<Operation> operations) {
    }

    /** Runs the try's steps on the store and on {@link KeyState}s, which every answer must equal. */
    // The reference's maps hold every key a step uses; a give-back's acknowledgement is awaited, not read.
    @SuppressWarnings({"NullAway", "ReturnValueIgnored"})
    void matchesTheReference(ScenarioWithOperations run, long startMicros) {
        Scenario scenario = run.scenario();
        List<Limit> limits = scenario.limits();
        List<String> keys = new ArrayList<>();
        Map<String, KeyState> reference = new HashMap<>();
        Map<String, Lease> outstanding = new HashMap<>();
        Map<String, Long> unused = new HashMap<>();
        for (int i = 0; i < scenario.keys(); i++) {
            String key = newKey.get();
            keys.add(key);
            reference.put(key, KeyState.empty());
        }
        clock.setMicros(startMicros + scenario.startOffsetMicros());
        for (int i = 0; i < scenario.steps().size(); i++) {
            Scenario.Step step = scenario.steps().get(i);
            clock.advanceMicros(step.advanceMicros());
            long now = clock.nowMicros();
            String key = keys.get(step.key());
            KeyState expected = Objects.requireNonNull(reference.get(key), "the reference state of every key");
            String what = String.format("step %d of %d (%s %s) at %dus on key %d, limits %s", i,
                    scenario.steps().size(), run.operations().get(i), step, now, step.key(), limits);
            switch (run.operations().get(i)) {
                case REQUEST -> assertThat((Decision) await.apply(store.tryAcquire(key, limits, step.cost())))
                        .as("%s: the store's decision after leases and give-backs", what)
                        .isEqualTo(expected.tryAcquire(limits, now, step.cost()));
                case LEASE -> {
                    Lease lease = (Lease) await.apply(store.lease(key, limits, step.cost()));
                    assertThat(lease).as("%s: the store's lease (tokens, time taken, decision); it must be the "
                            + "largest count up to the maximum that every limit admits, charged to all of them",
                            what).isEqualTo(expected.lease(limits, now, step.cost()));
                    outstanding.put(key, lease);
                    unused.put(key, lease.tokens());
                }
                case GIVE_BACK -> {
                    Lease lease = outstanding.get(key);
                    if (lease != null) {
                        long left = unused.getOrDefault(key, 0L);
                        long back = Math.min(step.cost(), left);
                        assertThat(await.apply(store.giveBack(key, limits, lease, back)))
                                .as("%s: a give-back completes", what).isNull();
                        expected.giveBack(limits, now, lease.takenAtMicros(), back);
                        unused.put(key, left - back);
                    }
                }
            }
        }
    }

    /** 16 threads lease batches of 1 to 7 tokens on one key under a frozen clock: exactly the capacity in all. */
    void concurrentLeasesGrantExactlyTheCapacity() {
        for (Limit limit : leasableLimitsOf(100)) {
            String key = newKey.get();
            List<Limit> limits = List.of(limit);
            List<Lease> leases = concurrently(key, limits, 25);
            long granted = leases.stream().mapToLong(Lease::tokens).sum();
            assertThat(granted).as("%d leases of 1 to 7 tokens from %d threads at once on one key, %s: the tokens "
                    + "granted in all must be exactly the capacity, 100 (more is over-admission: a lost update); "
                    + "the store granted", leases.size(), THREADS, limit).isEqualTo(100);
            assertThat(((Lease) await.apply(store.lease(key, limits, 1))).tokens())
                    .as("a lease after the concurrent leases took the whole capacity of %s", limit).isZero();
        }
    }

    /** Give-backs in the lease's window, after it, and of more tokens than were leased. */
    @SuppressWarnings("ReturnValueIgnored") // calls whose acknowledgement is awaited, not read
    void givenBackTokensNeverOverAdmit() {
        Limit bucket = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofHours(1)).named("bucket");
        Limit window = Limit.of(Algorithms.FIXED_WINDOW, 10, Duration.ofHours(1)).named("window");
        String key = newKey.get();
        clock.setMicros(StoreConformance.startMicros());
        Lease lease = (Lease) await.apply(store.lease(key, List.of(bucket, window), 10));
        assertThat(lease.tokens()).as("a lease of 10 on fresh %s and %s", bucket, window).isEqualTo(10);
        assertThat(await.apply(store.giveBack(key, List.of(bucket, window), lease, 4))).as("a give-back completes")
                .isNull();
        assertThat(((Lease) await.apply(store.lease(key, List.of(bucket, window), 10))).tokens())
                .as("a lease after 4 of 10 leased tokens were given back in the same window, no time passed: "
                        + "exactly those 4").isEqualTo(4);

        String next = newKey.get();
        Lease inWindow = (Lease) await.apply(store.lease(next, List.of(window), 10));
        clock.advance(Duration.ofHours(1));
        assertThat(((Decision) await.apply(store.tryAcquire(next, List.of(window), 5))).allowed())
                .as("a request of 5 in a fresh window of %s", window).isTrue();
        assertThat(await.apply(store.giveBack(next, List.of(window), inWindow, 10))).as("a give-back completes")
                .isNull();
        assertThat(((Lease) await.apply(store.lease(next, List.of(window), 20))).tokens())
                .as("%s: 10 tokens leased in one window, a request of 5 in the next, then the 10 given back: a "
                        + "lease must get the 5 left in the new window (more: the old window's tokens were given "
                        + "to the new one)", window)
                .isEqualTo(5);

        Throwable tooMany = StoreConformance.failureOf(store.giveBack(key, List.of(bucket, window), lease, 11));
        assertThat(tooMany).as("giving back 11 tokens of a lease of 10").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("11");
    }

    /** A lease with a sliding-log limit fails with IllegalArgumentException naming it, and charges nothing. */
    void aSlidingLogLimitIsNeverLeased() {
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 10, Duration.ofHours(1)).named("log");
        Limit bucket = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofHours(1)).named("bucket");
        String key = newKey.get();
        Throwable failure = StoreConformance.failureOf(store.lease(key, List.of(bucket, log), 5));
        assertThat(failure).as("a lease on %s and %s (the sliding log cannot be leased)", bucket, log)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("log")
                .hasMessageContaining("sliding-log");
        assertThat(((Decision) await.apply(store.tryAcquire(key, List.of(bucket, log), 1))).remaining())
                .as("a request on both after the refused lease: 10 - 1 must remain (less: the lease charged)")
                .isEqualTo(9);
    }

    private static List<Limit> leasableLimitsOf(long capacity) {
        List<Limit> limits = new ArrayList<>();
        for (var algorithm : Algorithms.all()) {
            if (Leasing.supports(algorithm)) {
                limits.add(Limit.of(algorithm, capacity, Duration.ofHours(1)));
            }
        }
        return limits;
    }

    /** Leases of 1 to 7 tokens from {@link #THREADS} threads at once, {@code perThread} each. */
    private List<Lease> concurrently(String key, List<Limit> limits, int perThread) {
        return AtOnce.run(THREADS, "a concurrent lease failed", t -> {
            long maxTokens = 1 + t % 7;
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
                leases.add((Lease) await.apply(store.lease(key, limits, maxTokens)));
            }
            return leases;
        });
    }
}
