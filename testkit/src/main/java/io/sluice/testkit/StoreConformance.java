package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Reporter;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainerHook;
import net.jqwik.api.lifecycle.ContainerLifecycleContext;
import net.jqwik.api.statistics.Statistics;
import org.jspecify.annotations.Nullable;

/**
 * The conformance suite of the {@link Store} contract: a store's test extends this class and
 * says how to create the store, and the kit checks that it decides exactly as the reference
 * algorithms do, under concurrency too, all-or-nothing across limits, that it expires state,
 * and that bad input gets the documented exceptions.
 *
 * <pre>{@code
 * class MyStoreConformanceTest extends StoreConformance {
 *     protected Store createStore(VirtualClock clock) {
 *         return MyStore.builder().clockForTesting(clock).build();
 *     }
 *     protected Store createStore() {
 *         return MyStore.builder().build();
 *     }
 * }
 * }</pre>
 *
 * <p>The kit creates each store once per test class (lazily, the one on its own clock only
 * for the tests that need it) and closes both when the class is done, before the subclass's
 * own {@code @AfterContainer} methods run, so a subclass may stop its server there. Every
 * try uses keys of its own, so tries never see each other's state, also on a server that
 * outlives the test run. The kit adapts its expectations to the store's {@link StoreCapabilities}: a
 * missing capability weakens a check to what the {@link Store} contract still requires, and
 * the report says so; nothing is skipped silently.
 *
 * <p>Runs on the jqwik engine of the JUnit Platform.
 */
@AddLifecycleHook(StoreConformance.ClosesStores.class)
public abstract class StoreConformance {

    /** The virtual clock's start: 2026-01-01T00:00:00Z. */
    private static final long START_MICROS = 1_767_225_600_000_000L;

    /** The longest wait for one store call, generous for a loaded CI machine. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    /** How long state may take to disappear once its reset has passed, on a server's real clock. */
    private static final Duration EXPIRY_DEADLINE = Duration.ofSeconds(10);

    /**
     * The period of the expiry test: short, because a store whose time to live runs on its
     * server's real clock needs that time to pass really.
     */
    private static final Duration EXPIRY_PERIOD = Duration.ofMillis(200);

    private static final int THREADS = 16;

    private static final Map<Class<?>, Fixture> FIXTURES = new ConcurrentHashMap<>();

    /**
     * Creates the store under test with its clock replaced by {@code clock} (its
     * {@code clockForTesting}). Called once per test class.
     */
    protected abstract Store createStore(VirtualClock clock);

    /**
     * Creates the store under test on its own clock, as in production. Called at most once per
     * test class.
     */
    protected abstract Store createStore();

    /**
     * Closes a test class's stores once its tests are done, before that class's own
     * {@code @AfterContainer} methods run, which may stop the servers the stores use: a hook of
     * the default proximity runs closer to the container than jqwik's lifecycle methods.
     */
    static final class ClosesStores implements AfterContainerHook {

        @Override
        public void afterContainer(ContainerLifecycleContext context) {
            context.optionalContainerClass().map(FIXTURES::remove).ifPresent(Fixture::close);
        }
    }

    private Fixture fixture() {
        return FIXTURES.computeIfAbsent(getClass(), type -> new Fixture(this));
    }

    // ---- decisions against the reference model --------------------------------------------

    @Property(tries = 250)
    void singleLimitDecisionsMatchTheReferenceModel(@ForAll("singleLimitScenarios") Scenario scenario) {
        Statistics.label("algorithm").collect(scenario.limits().get(0).algorithm().name());
        runAgainstModel(scenario);
    }

    @Property(tries = 100)
    void multiLimitDecisionsMatchTheReferenceModel(@ForAll("multiLimitScenarios") Scenario scenario) {
        // Every store charges all of a request's limits or none (the Store contract): here one
        // request at a time; the concurrent case is checked against atomicMultiLimit.
        runAgainstModel(scenario);
    }

    @Provide
    Arbitrary<Scenario> singleLimitScenarios() {
        return Scenarios.withLimits(1, 1);
    }

    @Provide
    Arbitrary<Scenario> multiLimitScenarios() {
        return Scenarios.withLimits(2, 3);
    }

    private void runAgainstModel(Scenario scenario) {
        Fixture fixture = fixture();
        VirtualClock clock = fixture.clock;
        ReferenceModel model = new ReferenceModel();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < scenario.keys(); i++) {
            keys.add(fixture.newKey("model"));
        }
        // Every try starts at the same instant plus its offset, whatever earlier tries did: a
        // sample then decides the same when jqwik replays or shrinks it, and the clock stays in
        // the range the algorithms are exact in. Only this try's fresh keys see the jump back.
        clock.setMicros(START_MICROS + scenario.startOffsetMicros());
        boolean denied = false;
        for (int i = 0; i < scenario.steps().size(); i++) {
            Scenario.Step step = scenario.steps().get(i);
            clock.advanceMicros(step.advanceMicros());
            String key = keys.get(step.key());
            Decision expected = model.tryAcquire(key, scenario.limits(), clock.nowMicros(), step.cost());
            Decision actual = await(fixture.virtualStore.tryAcquire(key, scenario.limits(), step.cost()));
            assertThat(actual).as("step %d (%s) at %dus", i, step, clock.nowMicros()).isEqualTo(expected);
            denied |= !expected.allowed();
        }
        // A generator that stopped reaching denials would leave most of the contract unchecked.
        Statistics.label("denied").collect(denied);
        Statistics.label("denied").coverage(coverage -> coverage.check(true).percentage(p -> p >= 20));
    }

    // ---- concurrency -----------------------------------------------------------------------

    @Example
    void concurrentRequestsOnOneKeyAdmitExactlyTheCapacityUnderAFrozenClock() {
        Fixture fixture = fixture();
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 40, Duration.ofHours(1));
            assertExactlyCapacityAdmitted(fixture.virtualStore, fixture.newKey("frozen"), limit);
        }
    }

    @Example
    void concurrentRequestsOnOneKeyAdmitExactlyTheCapacityOnTheStoresOwnClock() {
        Fixture fixture = fixture();
        Store store = fixture.ownClockStore();
        // Bounds that stay exact while real time passes: no token comes back within a day, and
        // a sliding log has no window boundary to cross. (The windows' counts restart at epoch-
        // aligned boundaries, so their bound is exact only under the frozen clock above.)
        Duration day = Duration.ofDays(1);
        assertExactlyCapacityAdmitted(store, fixture.newKey("own-clock"),
                Limit.of(Algorithms.TOKEN_BUCKET, 1, day).withBurst(40));
        assertExactlyCapacityAdmitted(store, fixture.newKey("own-clock"),
                Limit.of(Algorithms.GCRA, 1, day).withBurst(40));
        assertExactlyCapacityAdmitted(store, fixture.newKey("own-clock"),
                Limit.of(Algorithms.SLIDING_LOG, 40, day));
    }

    private static void assertExactlyCapacityAdmitted(Store store, String key, Limit limit) {
        List<Limit> limits = List.of(limit);
        List<Decision> decisions = concurrently(store, key, limits, 4 * limit.burst());
        List<Long> remainingWhenAdmitted = decisions.stream().filter(Decision::allowed)
                .map(Decision::remaining).sorted().toList();
        // Each admitted request saw a distinct count: a lost update would repeat one.
        assertThat(remainingWhenAdmitted).as("remaining of the admitted requests, %s", limit)
                .containsExactlyElementsOf(LongStream.range(0, limit.burst()).boxed().toList());
        assertThat(decisions).filteredOn(decision -> !decision.allowed())
                .as("denied requests, %s", limit)
                .allSatisfy(decision -> assertThat(decision.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED));
        assertThat(await(store.tryAcquire(key, limits, 1)).allowed()).as("after the burst, %s", limit).isFalse();
    }

    @Example
    void concurrentMultiLimitRequestsChargeAllOrNone(Reporter reporter) {
        Fixture fixture = fixture();
        Limit window = Limit.of(Algorithms.FIXED_WINDOW, 30, Duration.ofHours(1)).named("window");
        Limit bucket = Limit.of(Algorithms.TOKEN_BUCKET, 50, Duration.ofHours(1)).named("bucket");
        String key = fixture.newKey("concurrent-multi");
        List<Decision> decisions = concurrently(fixture.virtualStore, key, List.of(window, bucket), 120);
        long admitted = decisions.stream().filter(Decision::allowed).count();
        if (fixture.capabilities.atomicMultiLimit()) {
            assertThat(admitted).isEqualTo(30);
            // The 90 denied requests took no token from the bucket.
            assertThat(await(fixture.virtualStore.tryAcquire(key, List.of(bucket), 1)).remaining())
                    .isEqualTo(50 - 30 - 1);
        } else {
            reporter.publishValue("atomicMultiLimit",
                    "not declared: checked only that concurrent multi-limit requests never over-admit");
            assertThat(admitted).isLessThanOrEqualTo(30);
        }
    }

    /** Sends {@code attempts} requests of cost 1 from {@link #THREADS} threads at once. */
    private static List<Decision> concurrently(Store store, String key, List<Limit> limits, long attempts) {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Decision>>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long share = attempts / THREADS + (t < attempts % THREADS ? 1 : 0);
                results.add(threads.submit(() -> {
                    start.await();
                    List<Decision> decisions = new ArrayList<>();
                    for (long i = 0; i < share; i++) {
                        decisions.add(await(store.tryAcquire(key, limits, 1)));
                    }
                    return decisions;
                }));
            }
            start.countDown();
            List<Decision> all = new ArrayList<>();
            for (Future<List<Decision>> result : results) {
                all.addAll(result.get());
            }
            return all;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            throw new AssertionError("a concurrent request failed", e.getCause());
        } finally {
            threads.shutdownNow();
        }
    }

    // ---- all or nothing --------------------------------------------------------------------

    @Example
    void aDeniedRequestChargesNoneOfItsLimits() {
        Fixture fixture = fixture();
        Store store = fixture.virtualStore;
        Limit window = Limit.of(Algorithms.FIXED_WINDOW, 10, Duration.ofHours(1)).named("window");
        Limit bucket = Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofHours(1)).named("bucket");
        String key = fixture.newKey("all-or-none");

        assertThat(await(store.tryAcquire(key, List.of(window, bucket), 1)).allowed()).isTrue();
        assertThat(await(store.tryAcquire(key, List.of(window, bucket), 1)).allowed()).isTrue();
        Decision denied = await(store.tryAcquire(key, List.of(window, bucket), 1));
        assertThat(denied.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
        assertThat(denied.binding()).isEqualTo(bucket);
        Decision tooCostly = await(store.tryAcquire(key, List.of(bucket, window), 3));
        assertThat(tooCostly.reason()).isEqualTo(Decision.Reason.COST_EXCEEDS_CAPACITY);
        assertThat(tooCostly.binding()).isEqualTo(bucket);
        // Two admitted requests charged the window; the two denied ones did not.
        assertThat(await(store.tryAcquire(key, List.of(window), 1)).remaining()).isEqualTo(10 - 2 - 1);

        // The first limit denies while the second has room: the second is not charged either.
        String other = fixture.newKey("all-or-none");
        Limit single = Limit.of(Algorithms.SLIDING_LOG, 1, Duration.ofHours(1)).named("single");
        assertThat(await(store.tryAcquire(other, List.of(single, bucket), 1)).allowed()).isTrue();
        assertThat(await(store.tryAcquire(other, List.of(single, bucket), 1)).binding()).isEqualTo(single);
        assertThat(await(store.tryAcquire(other, List.of(bucket), 1)).remaining()).isZero();
    }

    @Example
    void aDeniedRequestOnAnUnusedKeyStoresNothing() {
        Fixture fixture = fixture();
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 5, Duration.ofHours(1));
            String key = fixture.newKey("nothing-stored");
            assertThat(await(fixture.virtualStore.tryAcquire(key, List.of(limit), 6)).reason())
                    .isEqualTo(Decision.Reason.COST_EXCEEDS_CAPACITY);
            assertThat(await(fixture.virtualStore.holdsState(key, limit))).as("%s", limit).isFalse();
        }
    }

    @Example
    void distinctKeysHaveDistinctStates() {
        Fixture fixture = fixture();
        Limit limit = Limit.of(Algorithms.FIXED_WINDOW, 1, Duration.ofHours(1));
        String base = fixture.newKey("keys");
        // Keys that differ only inside or after a brace (a Redis hash tag), by case, by a
        // character outside ASCII, or by length.
        List<String> keys = List.of(base + "{a}b", base + "{a}c", base + "{A}b", base + "{a}b ",
                base + ":é", base + ":e", base + ":\uD83D\uDE00", base);
        for (String key : keys) {
            assertThat(await(fixture.virtualStore.tryAcquire(key, List.of(limit), 1)).allowed())
                    .as("first request of key '%s'", key).isTrue();
        }
        for (String key : keys) {
            assertThat(await(fixture.virtualStore.tryAcquire(key, List.of(limit), 1)).allowed())
                    .as("second request of key '%s'", key).isFalse();
        }
    }

    // ---- a clock going back, limits changing ----------------------------------------------

    @Example
    void aClockGoingBackRefillsNothing() {
        Fixture fixture = fixture();
        VirtualClock clock = fixture.clock;
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 5, Duration.ofMinutes(1));
            String key = fixture.newKey("clock-back");
            ReferenceModel model = new ReferenceModel();
            long start = clock.nowMicros();
            long minute = limit.periodMicros();
            // A store's clock may go back across a failover: what was charged stays charged.
            for (long at : new long[] {start, start + minute / 2, start + minute / 5, start - minute / 3,
                    start + minute / 2 + 1, start + 2 * minute}) {
                clock.setMicros(at);
                for (long cost : new long[] {3, 2, 1}) {
                    assertSameDecision(fixture, model, key, List.of(limit), cost);
                }
            }
        }
    }

    @Example
    void aChangedLimitReadsTheStateItsNameHolds() {
        Fixture fixture = fixture();
        for (Algorithm algorithm : Algorithms.all()) {
            String key = fixture.newKey("changed-limit");
            ReferenceModel model = new ReferenceModel();
            // A tier changes: the same name with other parameters reads the state as it is.
            Limit before = Limit.of(algorithm, 10, Duration.ofMinutes(1)).named("tier");
            Limit lowered = Limit.of(algorithm, 4, Duration.ofMinutes(1)).named("tier");
            Limit raised = Limit.of(algorithm, 20, Duration.ofMinutes(2)).named("tier");
            Limit otherAlgorithm = Limit.of(algorithm == Algorithms.GCRA ? Algorithms.FIXED_WINDOW : Algorithms.GCRA,
                    10, Duration.ofMinutes(1)).named("tier");
            for (Limit limit : List.of(before, before, lowered, raised, raised, otherAlgorithm, before)) {
                assertSameDecision(fixture, model, key, List.of(limit), 3);
                fixture.clock.advanceMicros(1_000_000);
            }
        }
    }

    private static void assertSameDecision(Fixture fixture, ReferenceModel model, String key, List<Limit> limits,
                                           long cost) {
        long now = fixture.clock.nowMicros();
        Decision expected = model.tryAcquire(key, limits, now, cost);
        assertThat(await(fixture.virtualStore.tryAcquire(key, limits, cost)))
                .as("cost %d at %dus on %s", cost, now, limits).isEqualTo(expected);
    }

    // ---- expiry ----------------------------------------------------------------------------

    @Example
    void stateExpiresOnceItsLimitIsFullyReset(Reporter reporter) throws InterruptedException {
        Fixture fixture = fixture();
        Store store = fixture.virtualStore;
        VirtualClock clock = fixture.clock;
        if (!fixture.capabilities.expiry()) {
            reporter.publishValue("expiry",
                    "not declared: checked only that decisions after a reset are those of unused limits");
        }
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 4, EXPIRY_PERIOD);
            String key = fixture.newKey("expiry");
            assertThat(await(store.holdsState(key, limit))).as("unused key, %s", limit).isFalse();
            // At a window's start and taking the whole capacity, the state lives about a period
            // (longer for the counter), so a real-time TTL cannot pass before it is checked.
            long period = limit.periodMicros();
            clock.advanceMicros(period - clock.nowMicros() % period);
            Decision decision = await(store.tryAcquire(key, List.of(limit), limit.burst()));
            assertThat(decision.allowed()).as("%s", limit).isTrue();
            assertThat(await(store.holdsState(key, limit))).as("just charged, %s", limit).isTrue();

            clock.advance(decision.resetAfter());
            if (fixture.capabilities.expiry()) {
                awaitExpiry(store, key, limit);
            }
            Decision fresh = new ReferenceModel().tryAcquire(key, List.of(limit), clock.nowMicros(), 1);
            assertThat(await(store.tryAcquire(key, List.of(limit), 1))).as("after the reset, %s", limit)
                    .isEqualTo(fresh);
        }
    }

    private static void awaitExpiry(Store store, String key, Limit limit) throws InterruptedException {
        long deadline = System.nanoTime() + EXPIRY_DEADLINE.toNanos();
        while (await(store.holdsState(key, limit))) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("state of " + limit + " still held " + EXPIRY_DEADLINE
                        + " after its reset");
            }
            Thread.sleep(10);
        }
    }

    // ---- bad input -------------------------------------------------------------------------

    @Example
    @SuppressWarnings("NullAway") // passes null keys on purpose: they must be NullPointerExceptions
    void badRequestsGetTheDocumentedExceptions() {
        Fixture fixture = fixture();
        RateLimiter limiter = RateLimiter.builder()
                .limit(Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1)))
                .store(fixture.virtualStore)
                .build();
        String key = fixture.newKey("input");
        String tooLong = "k".repeat(RateLimiter.MAX_KEY_LENGTH + 1);

        assertThatThrownBy(() -> limiter.decide(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> limiter.decide("", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiter.decide(tooLong, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(tooLong.length()));
        assertThatThrownBy(() -> limiter.decide(key, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
        assertThatThrownBy(() -> limiter.decide(key, -7)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-7");
        assertThatThrownBy(() -> limiter.decideAsync(null, 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> limiter.decideAsync("", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiter.decideAsync(key, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");

        // Nothing was charged by the rejected calls; the longest key is a key like any other.
        assertThat(limiter.decide(key, 1).remaining()).isEqualTo(9);
        String longest = (key + "k".repeat(RateLimiter.MAX_KEY_LENGTH)).substring(0, RateLimiter.MAX_KEY_LENGTH);
        assertThat(limiter.decide(longest, 10).allowed()).isTrue();
        assertThat(limiter.decide(longest, 1).allowed()).isFalse();
    }

    @Example
    void badLimitsAreRejectedWhenCreated() {
        for (Algorithm algorithm : Algorithms.all()) {
            assertRejected(() -> Limit.of(algorithm, 0, Duration.ofSeconds(1)), "0");
            assertRejected(() -> Limit.of(algorithm, -3, Duration.ofSeconds(1)), "-3");
            assertRejected(() -> Limit.of(algorithm, Limit.MAX_PERMITS + 1, Duration.ofSeconds(1)),
                    String.valueOf(Limit.MAX_PERMITS + 1));
            assertRejected(() -> Limit.of(algorithm, 10, Duration.ZERO), "PT0S");
            assertRejected(() -> Limit.of(algorithm, 10, Duration.ofSeconds(-1)), "PT-1S");
            assertRejected(() -> Limit.of(algorithm, 10, Limit.MAX_PERIOD.plusNanos(1_000)), "PT");
            assertRejected(() -> Limit.of(algorithm, 10, Duration.ofNanos(1_500)), "PT0.0000015S");
            Limit limit = Limit.of(algorithm, 10, Duration.ofSeconds(1));
            assertRejected(() -> limit.withBurst(0), "0");
            assertRejected(() -> limit.named("has space"), "has space");
            assertRejected(() -> limit.named(""), "''");
        }
        // The windows have no burst other than their permits.
        assertRejected(() -> Limit.of(Algorithms.FIXED_WINDOW, 10, Duration.ofSeconds(1)).withBurst(11), "11");
        // The bucket algorithms need burst * ceil(period / permits) <= 2^50 us.
        assertRejected(() -> Limit.of(Algorithms.GCRA, 1, Limit.MAX_PERIOD).withBurst(Limit.MAX_PERMITS),
                String.valueOf(Limit.MAX_PERMITS));
        Limit limit = Limit.of(Algorithms.GCRA, 10, Duration.ofSeconds(1));
        assertThatThrownBy(() -> RateLimiter.builder().limit(limit).limit(limit))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(limit.name());
        assertThatThrownBy(() -> RateLimiter.builder().store(fixture().virtualStore).build())
                .isInstanceOf(IllegalStateException.class);
    }

    private static void assertRejected(Runnable creation, String badValue) {
        assertThatThrownBy(creation::run).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(badValue);
    }

    // ---- capabilities ----------------------------------------------------------------------

    @Example
    void statesItsCapabilities(Reporter reporter) {
        Fixture fixture = fixture();
        StoreCapabilities capabilities = fixture.capabilities;
        assertThat(capabilities).isNotNull();
        assertThat(fixture.ownClockStore().capabilities())
                .as("the same store on its own clock").isEqualTo(capabilities);
        reporter.publishValue("capabilities", capabilities.toString());
    }

    // ---- plumbing --------------------------------------------------------------------------

    private static <T> T await(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            throw new AssertionError("the store failed", e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the store did not answer within " + CALL_TIMEOUT, e);
        }
    }

    /** The stores of one test class, their virtual clock, and the source of unique keys. */
    private static final class Fixture {

        private final StoreConformance test;
        private final VirtualClock clock = new VirtualClock(START_MICROS);
        private final Store virtualStore;
        private final StoreCapabilities capabilities;
        /** Distinguishes this run's keys from those of earlier runs on the same server. */
        private final String run = Long.toHexString(ThreadLocalRandom.current().nextLong());
        private final AtomicLong keys = new AtomicLong();
        private @Nullable Store ownClockStore;

        Fixture(StoreConformance test) {
            this.test = test;
            this.virtualStore = test.createStore(clock);
            this.capabilities = virtualStore.capabilities();
        }

        String newKey(String purpose) {
            return "sluice-kit:" + run + ":" + purpose + ":" + keys.incrementAndGet();
        }

        synchronized Store ownClockStore() {
            if (ownClockStore == null) {
                ownClockStore = test.createStore();
            }
            return ownClockStore;
        }

        synchronized void close() {
            virtualStore.close();
            if (ownClockStore != null) {
                ownClockStore.close();
            }
        }
    }
}
