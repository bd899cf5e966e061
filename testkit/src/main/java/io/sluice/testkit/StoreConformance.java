package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

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
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import net.jqwik.api.AfterFailureMode;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Reporter;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AfterContainerHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.ContainerLifecycleContext;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.statistics.Statistics;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;

/**
 * The conformance suite of the {@link Store} contract: a store's test extends this class and
 * says how to create the store, and the kit checks that it decides exactly as the reference
 * algorithms do, under concurrency too, all-or-nothing across limits; that a denial on an
 * unused key writes nothing, that a key's memory is freed once its limits are reset and not
 * before its longest-lived one is (through the subclass's probe of the back end,
 * {@link #holdsAnythingFor}); that state of the store's previous format is read or rejected
 * ({@link #previousFormat}); and that bad input gets the documented exceptions.
 *
 * <pre>{@code
 * class MyStoreConformanceTest extends StoreConformance {
 *     protected Store createStore(VirtualClock clock) {
 *         return MyStore.builder().clockForTesting(clock).build();
 *     }
 *     protected Store createStore() {
 *         return MyStore.builder().build();
 *     }
 *     protected boolean holdsAnythingFor(Store store, String key) {
 *         return ((MyStore) store).backEnd().containsKey(key);
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
 * <p>A failing check says what it checked and what the store did. A failing generated check
 * also says how to replay it: every generated sample follows from the seed the report prints,
 * and {@code -Dsluice.kit.seed=<seed>} (a system property of the test JVM; Maven Surefire passes
 * on {@code -D} options) runs the kit's generated checks from that seed.
 *
 * <p>Runs on the jqwik engine of the JUnit Platform.
 */
@AddLifecycleHook(StoreConformance.ClosesStores.class)
@AddLifecycleHook(OneCheckAtATime.class)
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

    /** The longest-lived limit of the lifetime check: far longer than the check takes. */
    private static final Duration LONG_PERIOD = Duration.ofDays(1);

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
     * The kit's probe of memory: whether the store's back end holds anything written for
     * {@code key} (an entry, a server key, a record), looked up in the back end directly, past
     * the store's logic, whether or not the state in it has expired by the store's clock. The
     * probe may let the back end do the routine cleanup any read does (Redis deletes an expired
     * key it reads, a cache drops an expired entry) but never removes anything itself.
     *
     * <p>The kit checks with it that a denied request on an unused key writes nothing, that a
     * key's memory is freed once all its limits are reset, and not before its longest-lived
     * limit is. Called with either of the stores {@link #createStore} made.
     */
    protected abstract boolean holdsAnythingFor(Store store, String key) throws Exception;

    /**
     * The stored-state format the previous version of the store wrote, for the upgrade check;
     * none by default (the kit then reports that it did not run). A store whose state
     * outlives its process returns one from the day its format first changes.
     *
     * @param store the store on the virtual clock, the one the check uses
     */
    protected Optional<PreviousFormat> previousFormat(Store store) {
        return Optional.empty();
    }

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

    /**
     * Runs a generated check from the seed {@code -Dsluice.kit.seed} gives, if any, and adds to
     * a failure's report how to replay it.
     */
    static final class ReplaysSeed implements AroundPropertyHook {

        /** The system property that fixes the seed of the kit's generated checks. */
        static final String SEED_PROPERTY = "sluice.kit.seed";

        @Override
        public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
            String seed = System.getProperty(SEED_PROPERTY, "").trim();
            if (!seed.isEmpty()) {
                context.attributes().setSeed(seed);
                // The given seed, not a sample remembered from an earlier run.
                context.attributes().setAfterFailure(AfterFailureMode.RANDOM_SEED);
            }
            PropertyExecutionResult result = property.execute();
            if (result.status() != PropertyExecutionResult.Status.FAILED || result.seed().isEmpty()) {
                return result;
            }
            Throwable failure = result.throwable().orElse(null);
            String replay = context.extendedLabel() + " failed with seed " + result.seed().get()
                    + "; replay it with -D" + SEED_PROPERTY + "=" + result.seed().get()
                    + (failure == null ? "" : "\n" + failure.getMessage());
            AssertionError replayable = new AssertionError(replay, failure);
            if (failure != null) {
                replayable.setStackTrace(failure.getStackTrace());
            }
            return result.mapToFailed(replayable);
        }
    }

    private Fixture fixture() {
        return FIXTURES.computeIfAbsent(getClass(), type -> new Fixture(this));
    }

    // ---- decisions against the reference model --------------------------------------------

    @Property(tries = 250)
    @AddLifecycleHook(ReplaysSeed.class)
    void singleLimitDecisionsMatchTheReferenceModel(@ForAll("singleLimitScenarios") Scenario scenario) {
        Statistics.label("algorithm").collect(scenario.limits().get(0).algorithm().name());
        runAgainstModel(scenario);
    }

    @Property(tries = 100)
    @AddLifecycleHook(ReplaysSeed.class)
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
            assertThat(actual).as("step %d of %d (%s) at %dus on key %d, limits %s: the store's decision",
                    i, scenario.steps().size(), step, clock.nowMicros(), step.key(), scenario.limits())
                    .isEqualTo(expected);
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
        assertThat(remainingWhenAdmitted).as("%d requests of cost 1 from %d threads at once on one key, %s: "
                        + "the admitted ones must be exactly the capacity, each seeing a distinct remaining count "
                        + "(a repeated count is a lost update, more admitted than %d is over-admission); "
                        + "the remaining counts the store returned to the admitted requests",
                        decisions.size(), THREADS, limit, limit.burst())
                .containsExactlyElementsOf(LongStream.range(0, limit.burst()).boxed().toList());
        assertThat(decisions).filteredOn(decision -> !decision.allowed())
                .as("the denied requests of that burst, %s: each must be LIMIT_EXCEEDED", limit)
                .allSatisfy(decision -> assertThat(decision.reason()).isEqualTo(Decision.Reason.LIMIT_EXCEEDED));
        assertThat(await(store.tryAcquire(key, limits, 1)).allowed())
                .as("one more request after the concurrent burst took the whole capacity of %s: admitted", limit)
                .isFalse();
    }

    @Example
    void concurrentMultiLimitRequestsChargeAllOrNone(Reporter reporter) {
        Fixture fixture = fixture();
        Limit window = Limit.of(Algorithms.FIXED_WINDOW, 30, Duration.ofHours(1)).named("window");
        Limit bucket = Limit.of(Algorithms.TOKEN_BUCKET, 50, Duration.ofHours(1)).named("bucket");
        String key = fixture.newKey("concurrent-multi");
        List<Decision> decisions = concurrently(fixture.virtualStore, key, List.of(window, bucket), 120);
        long admitted = decisions.stream().filter(Decision::allowed).count();
        String what = "120 requests of cost 1 from " + THREADS + " threads at once on one key, each against "
                + window + " and " + bucket;
        if (fixture.capabilities.atomicMultiLimit()) {
            assertThat(admitted).as("%s: admitted must be the window's capacity, 30 (more is over-admission: "
                    + "a limit checked and charged in separate steps); the store admitted", what).isEqualTo(30);
            // The 90 denied requests took no token from the bucket.
            assertThat(await(fixture.virtualStore.tryAcquire(key, List.of(bucket), 1)).remaining())
                    .as("%s, then one request on the bucket alone: 50 - 30 admitted - 1 must remain "
                            + "(less means denied requests were charged to the bucket); the store left", what)
                    .isEqualTo(50 - 30 - 1);
        } else {
            reporter.publishValue("atomicMultiLimit",
                    "not declared: checked only that concurrent multi-limit requests never over-admit");
            assertThat(admitted).as("%s: at most the window's capacity, 30, may be admitted; the store admitted",
                    what).isLessThanOrEqualTo(30);
        }
    }

    /** Sends {@code attempts} requests of cost 1 from {@link #THREADS} threads at once. */
    private static List<Decision> concurrently(Store store, String key, List<Limit> limits, long attempts) {
        return AtOnce.run(THREADS, "a concurrent request failed", t -> {
            long share = attempts / THREADS + (t < attempts % THREADS ? 1 : 0);
            List<Decision> decisions = new ArrayList<>();
            for (long i = 0; i < share; i++) {
                decisions.add(await(store.tryAcquire(key, limits, 1)));
            }
            return decisions;
        });
    }

    // ---- all or nothing --------------------------------------------------------------------

    @Example
    void aDeniedRequestChargesNoneOfItsLimits() {
        Fixture fixture = fixture();
        Store store = fixture.virtualStore;
        Limit window = Limit.of(Algorithms.FIXED_WINDOW, 10, Duration.ofHours(1)).named("window");
        Limit bucket = Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofHours(1)).named("bucket");
        String key = fixture.newKey("all-or-none");

        String limits = "[" + window + ", " + bucket + "]";
        assertThat(await(store.tryAcquire(key, List.of(window, bucket), 1)).allowed())
                .as("first request of cost 1 against %s on an unused key: admitted", limits).isTrue();
        assertThat(await(store.tryAcquire(key, List.of(window, bucket), 1)).allowed())
                .as("second request of cost 1 against %s: admitted", limits).isTrue();
        Decision denied = await(store.tryAcquire(key, List.of(window, bucket), 1));
        assertThat(denied.reason()).as("third request against %s, the bucket empty: the decision's reason "
                + "(the store decided %s)", limits, denied).isEqualTo(Decision.Reason.LIMIT_EXCEEDED);
        assertThat(denied.binding()).as("third request against %s: the binding limit (the store decided %s)",
                limits, denied).isEqualTo(bucket);
        Decision tooCostly = await(store.tryAcquire(key, List.of(bucket, window), 3));
        assertThat(tooCostly.reason()).as("a request of cost 3 against the bucket of capacity 2: the decision's "
                + "reason (the store decided %s)", tooCostly).isEqualTo(Decision.Reason.COST_EXCEEDS_CAPACITY);
        assertThat(tooCostly.binding()).as("a request of cost 3 against the bucket of capacity 2: the binding "
                + "limit (the store decided %s)", tooCostly).isEqualTo(bucket);
        // Two admitted requests charged the window; the two denied ones did not.
        assertThat(await(store.tryAcquire(key, List.of(window), 1)).remaining())
                .as("after 2 admitted and 2 denied requests against %s, a request on the window alone: "
                        + "10 - 2 - 1 must remain (less means a denied request charged the window); remaining",
                        limits)
                .isEqualTo(10 - 2 - 1);

        // The first limit denies while the second has room: the second is not charged either.
        String other = fixture.newKey("all-or-none");
        Limit single = Limit.of(Algorithms.SLIDING_LOG, 1, Duration.ofHours(1)).named("single");
        String second = "[" + single + ", " + bucket + "]";
        assertThat(await(store.tryAcquire(other, List.of(single, bucket), 1)).allowed())
                .as("first request against %s on an unused key: admitted", second).isTrue();
        Decision deniedBySingle = await(store.tryAcquire(other, List.of(single, bucket), 1));
        assertThat(deniedBySingle.binding()).as("second request against %s: the binding limit (the store "
                + "decided %s)", second, deniedBySingle).isEqualTo(single);
        Decision bucketAlone = await(store.tryAcquire(other, List.of(bucket), 1));
        assertThat(bucketAlone.allowed()).as("then a request of cost 1 on the bucket alone (capacity 2, 1 taken by "
                + "the first request): admitted (the store decided %s; denying it means the denied request "
                + "charged the bucket)", bucketAlone).isTrue();
        assertThat(bucketAlone.remaining()).as("that request on the bucket alone: remaining").isZero();
    }

    @Example
    void aDeniedRequestOnAnUnusedKeyStoresNothing() throws Exception {
        Fixture fixture = fixture();
        Store store = fixture.virtualStore;
        // A flood of made-up keys, each denied, must cost the store no memory.
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 5, Duration.ofHours(1));
            String key = fixture.newKey("nothing-stored");
            Decision decision = await(store.tryAcquire(key, List.of(limit), 6));
            assertThat(decision.reason()).as("a request of cost 6 against %s on an unused key: the decision's "
                    + "reason (the store decided %s)", limit, decision).isEqualTo(Decision.Reason.COST_EXCEEDS_CAPACITY);
            assertNothingHeld(store, key, "after a denied request of cost 6 against " + limit + " on an unused key");
        }
        // A request that one limit admits and another denies, on an unused key, stores nothing either.
        Limit roomy = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofHours(1)).named("roomy");
        Limit tight = Limit.of(Algorithms.FIXED_WINDOW, 2, Duration.ofHours(1)).named("tight");
        String key = fixture.newKey("nothing-stored");
        Decision decision = await(store.tryAcquire(key, List.of(roomy, tight), 3));
        assertThat(decision.allowed()).as("a request of cost 3 against %s and %s on an unused key: admitted "
                + "(the store decided %s)", roomy, tight, decision).isFalse();
        assertNothingHeld(store, key, "after a request of cost 3 on an unused key that " + roomy
                + " admitted and " + tight + " denied");
    }

    private void assertNothingHeld(Store store, String key, String when) throws Exception {
        if (holdsAnythingFor(store, key)) {
            throw new AssertionError(when + ", the store's back end holds an entry for the key (by "
                    + "holdsAnythingFor): a denied request must write nothing, or every made-up key of a "
                    + "flood costs memory");
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
                    .as("the first request against %s on key '%s', after the first request on each of the "
                            + "keys before it in %s: admitted (denying it means the key shares another's state)",
                            limit, key, keys).isTrue();
        }
        for (String key : keys) {
            assertThat(await(fixture.virtualStore.tryAcquire(key, List.of(limit), 1)).allowed())
                    .as("the second request against %s on key '%s': admitted (admitting it means the store "
                            + "lost the first request's charge)", limit, key).isFalse();
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

    @Example
    void aStatePastItsResetIsFreshUnderAChangedLimit() {
        Fixture fixture = fixture();
        VirtualClock clock = fixture.clock;
        long twoMinutes = 120_000_000L;
        for (Algorithm algorithm : Algorithms.all()) {
            String key = fixture.newKey("reset-then-changed");
            ReferenceModel model = new ReferenceModel();
            Limit before = Limit.of(algorithm, 10, Duration.ofMinutes(1)).named("tier");
            Limit raised = Limit.of(algorithm, 20, Duration.ofMinutes(2)).named("tier");
            // A longer-lived limit keeps the key: only the tier's own state has expired.
            Limit day = Limit.of(algorithm, 1_000, Duration.ofDays(1)).named("day");
            // 58 s into a window of two minutes: a fixed window of one minute resets 2 s later, at
            // the middle of the raised limit's window, which the charged one's start also starts.
            clock.setMicros((clock.nowMicros() / twoMinutes + 1) * twoMinutes + 58_000_000);
            Decision charged = model.tryAcquire(key, List.of(before, day), clock.nowMicros(), 3);
            assertThat(await(fixture.virtualStore.tryAcquire(key, List.of(before, day), 3)))
                    .as("a request of cost 3 against %s and %s on an unused key", before, day).isEqualTo(charged);
            // Bound to the tier (7 remaining against the day's 997): its reset is the tier's.
            clock.advance(charged.resetAfter());
            Decision expected = model.tryAcquire(key, List.of(raised, day), clock.nowMicros(), 3);
            assertThat(expected.remaining()).as("the model: %s past its reset is the fresh state under %s",
                    before, raised).isEqualTo(17);
            assertThat(await(fixture.virtualStore.tryAcquire(key, List.of(raised, day), 3)))
                    .as("a request of cost 3 against %s once %s's state was past its reset (%s after a request of "
                            + "cost 3), the key kept by %s: the state is fresh whatever the limit's parameters now "
                            + "(reading it as it is gives the tier fewer than 17 remaining); the store decided",
                            raised, before, charged.resetAfter(), day)
                    .isEqualTo(expected);
        }
    }

    private static void assertSameDecision(Fixture fixture, ReferenceModel model, String key, List<Limit> limits,
                                           long cost) {
        long now = fixture.clock.nowMicros();
        Decision expected = model.tryAcquire(key, limits, now, cost);
        assertThat(await(fixture.virtualStore.tryAcquire(key, limits, cost)))
                .as("a request of cost %d at %dus against %s, after the requests before it on the key: the "
                        + "store's decision", cost, now, limits).isEqualTo(expected);
    }

    // ---- expiry ----------------------------------------------------------------------------

    @Example
    void stateExpiresOnceItsLimitIsFullyReset() throws Exception {
        Fixture fixture = fixture();
        Store store = fixture.virtualStore;
        VirtualClock clock = fixture.clock;
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 4, EXPIRY_PERIOD);
            String key = fixture.newKey("expiry");
            Decision decision = await(store.tryAcquire(key, List.of(limit), limit.burst()));
            assertThat(decision.allowed()).as("a request taking the whole capacity of %s on an unused key: "
                    + "admitted (the store decided %s)", limit, decision).isTrue();
            if (!holdsAnythingFor(store, key)) {
                throw new AssertionError("just after an admitted request of cost " + limit.burst() + " against "
                        + limit + ", the store's back end holds nothing for the key (by holdsAnythingFor): "
                        + "either the store did not write the charge or the probe does not see it");
            }
            clock.advance(decision.resetAfter());
            Decision fresh = new ReferenceModel().tryAcquire(key, List.of(limit), clock.nowMicros(), 1);
            Decision actual = await(store.tryAcquire(key, List.of(limit), 1));
            assertThat(actual).as("a request of cost 1 against %s once the virtual clock passed the reset "
                    + "(%s) of the charge before: must be decided as on an unused limit; the store decided",
                    limit, decision.resetAfter()).isEqualTo(fresh);
        }
    }

    @Example
    void idleStateIsFreedOnTheStoresOwnClock(Reporter reporter) throws Exception {
        Fixture fixture = fixture();
        if (!fixture.capabilities.expiry()) {
            reporter.publishValue("expiry", "not declared: the memory of idle keys was not checked");
            return;
        }
        Store store = fixture.ownClockStore();
        for (Algorithm algorithm : Algorithms.all()) {
            Limit limit = Limit.of(algorithm, 4, EXPIRY_PERIOD);
            String key = fixture.newKey("freed");
            Decision decision = await(store.tryAcquire(key, List.of(limit), 1));
            assertThat(decision.allowed()).as("a request of cost 1 against %s on an unused key: admitted "
                    + "(the store decided %s)", limit, decision).isTrue();
            awaitNothingHeld(store, key, decision.resetAfter(), "the store declares expiry, but its back end "
                    + "still holds an entry for a key whose only limit, " + limit + ", was fully reset");
        }
    }

    @Example
    void aKeyLivesAsLongAsItsLongestLivedLimit(Reporter reporter) throws Exception {
        Fixture fixture = fixture();
        Store store = fixture.ownClockStore();
        // 2 per 200 ms and 3 a day: once the short limit is reset, a day's request of cost 2 has
        // only 1 left. A key kept only as long as its shortest limit restarts the day's count.
        // The day's limit has no window boundary to cross during the check.
        Limit shortLived = Limit.of(Algorithms.FIXED_WINDOW, 2, EXPIRY_PERIOD).named("short");
        Limit longLived = Limit.of(Algorithms.TOKEN_BUCKET, 1, LONG_PERIOD).withBurst(3).named("long");
        List<Limit> both = List.of(shortLived, longLived);
        String key = fixture.newKey("lifetime");
        Decision first = await(store.tryAcquire(key, both, 2));
        assertThat(first.allowed()).as("a request of cost 2 against %s on an unused key: admitted (the store "
                + "decided %s)", both, first).isTrue();
        if (fixture.capabilities.expiry()) {
            // A witness charged after the key, with the short limit only: once it is gone, the
            // short limit's time to live has passed for the key too.
            String witness = fixture.newKey("lifetime-witness");
            Decision witnessed = await(store.tryAcquire(witness, List.of(shortLived), 2));
            awaitNothingHeld(store, witness, witnessed.resetAfter(), "the store declares expiry, but its back "
                    + "end still holds an entry for a key whose only limit, " + shortLived + ", was fully reset");
            if (!holdsAnythingFor(store, key)) {
                throw new AssertionError("a key charged against " + both + " is gone from the store's back end "
                        + "once its shortest-lived limit is reset, though " + longLived + " is not: the key "
                        + "must live as long as its longest-lived limit, or that limit restarts early");
            }
        } else {
            reporter.publishValue("expiry", "not declared: checked only the decision after the short limit's reset");
            awaitRealTime(first.resetAfter());
        }
        Decision second = await(store.tryAcquire(key, both, 2));
        assertThat(second.allowed()).as("a second request of cost 2 against %s, after the short limit was reset "
                + "and with 1 of the day's 3 left: admitted (the store decided %s; admitting it means the "
                + "day's limit restarted when the short one was reset)", both, second).isFalse();
        assertThat(second.binding()).as("that second request: the binding limit (the store decided %s)", second)
                .isEqualTo(longLived);
    }

    /**
     * Waits until the store's back end holds nothing for {@code key}, at most
     * {@link #EXPIRY_DEADLINE} after {@code resetAfter} has passed on the real clock.
     */
    private void awaitNothingHeld(Store store, String key, Duration resetAfter, String failure) throws Exception {
        long start = System.nanoTime();
        long deadline = start + resetAfter.toNanos() + EXPIRY_DEADLINE.toNanos();
        while (holdsAnythingFor(store, key)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(failure + " (resetAfter " + resetAfter + "), " + EXPIRY_DEADLINE
                        + " after that reset: idle keys would cost memory forever");
            }
            Thread.sleep(10);
        }
    }

    private static void awaitRealTime(Duration duration) throws InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    // ---- stored state of the previous format -----------------------------------------------

    @Example
    void stateOfThePreviousFormatIsReadOrRejected(Reporter reporter) throws Exception {
        Fixture fixture = fixture();
        Store store = fixture.virtualStore;
        Optional<PreviousFormat> declared = previousFormat(store);
        if (declared.isEmpty()) {
            reporter.publishValue("previousFormat", "none declared: the upgrade check did not run");
            return;
        }
        PreviousFormat previous = declared.get();
        VirtualClock clock = fixture.clock;
        List<Limit> limits = new ArrayList<>();
        for (Algorithm algorithm : Algorithms.all()) {
            limits.add(Limit.of(algorithm, 5, Duration.ofHours(1)).named("upgrade-" + algorithm.name()));
        }
        String key = fixture.newKey("previous-format");
        ReferenceModel model = new ReferenceModel();
        // The previous version admitted two requests: their state is what it left.
        model.tryAcquire(key, limits, clock.nowMicros(), 2);
        clock.advance(Duration.ofSeconds(1));
        model.tryAcquire(key, limits, clock.nowMicros(), 1);
        previous.writer().write(key, model.held(key), clock.nowMicros());
        clock.advance(Duration.ofSeconds(1));

        String what = "state of " + limits + " written in the store's previous " + previous;
        if (previous.outcome() == PreviousFormat.Outcome.REJECTED) {
            assertRejectedNamingTheVersion(store.tryAcquire(key, limits, 1), previous, what);
            reporter.publishValue("previousFormat", previous + ": rejected as declared");
            return;
        }
        // Two requests of cost 1 fit in what is left, the third does not.
        for (int step = 0; step < 3; step++) {
            Decision expected = model.tryAcquire(key, limits, clock.nowMicros(), 1);
            Decision actual = await(store.tryAcquire(key, limits, 1));
            assertThat(actual).as("%s, then request %d of cost 1 at %dus: must be decided as on the state that "
                    + "version left (deciding as on an unused key admits the limit again); the store decided",
                    what, step + 1, clock.nowMicros()).isEqualTo(expected);
            clock.advanceMicros(1);
        }
        reporter.publishValue("previousFormat", previous + ": read as declared");
    }

    private static void assertRejectedNamingTheVersion(CompletionStage<Decision> decision, PreviousFormat previous,
                                                       String what) {
        Decision outcome;
        try {
            outcome = decision.toCompletableFuture().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                if (String.valueOf(cause.getMessage()).contains("version")) {
                    return;
                }
            }
            throw new AssertionError(what + ", then a request: the store failed as declared, but no error in the "
                    + "chain names the format version (an operator must tell an upgrade from an outage)",
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("the store did not answer within " + CALL_TIMEOUT, e);
        }
        throw new AssertionError(what + ", then a request: the store declared it rejects that format, but "
                + "decided " + outcome);
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

        assertThrows("decide(null, 1)", () -> limiter.decide(null, 1), NullPointerException.class, "");
        assertThrows("decide(\"\", 1)", () -> limiter.decide("", 1), IllegalArgumentException.class, "");
        assertThrows("decide(a key of " + tooLong.length() + " characters, 1)", () -> limiter.decide(tooLong, 1),
                IllegalArgumentException.class, String.valueOf(tooLong.length()));
        assertThrows("decide(key, 0)", () -> limiter.decide(key, 0), IllegalArgumentException.class, "0");
        assertThrows("decide(key, -7)", () -> limiter.decide(key, -7), IllegalArgumentException.class, "-7");
        assertThrows("decideAsync(null, 1)", () -> limiter.decideAsync(null, 1), NullPointerException.class, "");
        assertThrows("decideAsync(\"\", 1)", () -> limiter.decideAsync("", 1), IllegalArgumentException.class, "");
        assertThrows("decideAsync(key, 0)", () -> limiter.decideAsync(key, 0), IllegalArgumentException.class, "0");

        // Nothing was charged by the rejected calls; the longest key is a key like any other.
        assertThat(limiter.decide(key, 1).remaining()).as("after rejected calls with a bad key or cost, the "
                + "first valid request against 10 per second: 9 must remain (less means a rejected call was "
                + "charged); remaining").isEqualTo(9);
        String longest = (key + "k".repeat(RateLimiter.MAX_KEY_LENGTH)).substring(0, RateLimiter.MAX_KEY_LENGTH);
        Decision full = limiter.decide(longest, 10);
        assertThat(full.allowed()).as("a request of cost 10 against 10 per second on an unused key of the "
                + "longest length, %d characters: admitted (the store decided %s)", longest.length(), full).isTrue();
        Decision beyond = limiter.decide(longest, 1);
        assertThat(beyond.allowed()).as("then one more request on that key of %d characters: admitted (the store "
                + "decided %s; admitting it means the store cut or hashed the key into another's state, or "
                + "lost the charge)", longest.length(), beyond).isFalse();
    }

    @Example
    void badLimitsAreRejectedWhenCreated() {
        for (Algorithm algorithm : Algorithms.all()) {
            String of = "Limit.of(" + algorithm.name() + ", ";
            assertRejected(of + "0, 1s)", () -> Limit.of(algorithm, 0, Duration.ofSeconds(1)), "0");
            assertRejected(of + "-3, 1s)", () -> Limit.of(algorithm, -3, Duration.ofSeconds(1)), "-3");
            assertRejected(of + (Limit.MAX_PERMITS + 1) + ", 1s)",
                    () -> Limit.of(algorithm, Limit.MAX_PERMITS + 1, Duration.ofSeconds(1)),
                    String.valueOf(Limit.MAX_PERMITS + 1));
            assertRejected(of + "10, 0s)", () -> Limit.of(algorithm, 10, Duration.ZERO), "PT0S");
            assertRejected(of + "10, -1s)", () -> Limit.of(algorithm, 10, Duration.ofSeconds(-1)), "PT-1S");
            assertRejected(of + "10, MAX_PERIOD + 1us)",
                    () -> Limit.of(algorithm, 10, Limit.MAX_PERIOD.plusNanos(1_000)), "PT");
            assertRejected(of + "10, 1.5us)", () -> Limit.of(algorithm, 10, Duration.ofNanos(1_500)), "PT0.0000015S");
            Limit limit = Limit.of(algorithm, 10, Duration.ofSeconds(1));
            assertRejected(limit + ".withBurst(0)", () -> limit.withBurst(0), "0");
            assertRejected(limit + ".named(\"has space\")", () -> limit.named("has space"), "has space");
            assertRejected(limit + ".named(\"\")", () -> limit.named(""), "''");
        }
        // The windows have no burst other than their permits.
        assertRejected("a fixed window of 10 per second withBurst(11)",
                () -> Limit.of(Algorithms.FIXED_WINDOW, 10, Duration.ofSeconds(1)).withBurst(11), "11");
        // The bucket algorithms need burst * ceil(period / permits) <= 2^50 us.
        assertRejected("GCRA of 1 per MAX_PERIOD withBurst(MAX_PERMITS)",
                () -> Limit.of(Algorithms.GCRA, 1, Limit.MAX_PERIOD).withBurst(Limit.MAX_PERMITS),
                String.valueOf(Limit.MAX_PERMITS));
        Limit limit = Limit.of(Algorithms.GCRA, 10, Duration.ofSeconds(1));
        assertThrows("a builder given the same limit twice", () -> RateLimiter.builder().limit(limit).limit(limit),
                IllegalArgumentException.class, limit.name());
        assertThrows("build() of a builder with a store and no limit",
                () -> RateLimiter.builder().store(fixture().virtualStore).build(), IllegalStateException.class, "");
    }

    private static void assertRejected(String creation, ThrowingCallable create, String badValue) {
        assertThrows(creation, create, IllegalArgumentException.class, badValue);
    }

    /** {@code call} must throw {@code type} with a message that contains {@code mustName}. */
    private static void assertThrows(String call, ThrowingCallable code, Class<? extends Throwable> type,
                                     String mustName) {
        Throwable thrown = catchThrowable(code);
        assertThat(thrown).as("%s must throw %s%s; it threw", call, type.getSimpleName(),
                        mustName.isEmpty() ? "" : " naming '" + mustName + "'")
                .isInstanceOf(type);
        if (!mustName.isEmpty()) {
            assertThat(thrown).as("%s must throw %s naming '%s'; it threw", call, type.getSimpleName(), mustName)
                    .hasMessageContaining(mustName);
        }
    }

    // ---- leasing (the checks are in LeaseConformance) -------------------------------------

    @Property(tries = 100)
    @AddLifecycleHook(ReplaysSeed.class)
    void leasesAndGiveBacksMatchTheReference(
            @ForAll("leaseScenarios") LeaseConformance.ScenarioWithOperations scenario, Reporter reporter) {
        leasing(reporter).ifPresent(checks -> checks.matchesTheReference(scenario, START_MICROS));
    }

    @Provide
    Arbitrary<LeaseConformance.ScenarioWithOperations> leaseScenarios() {
        return LeaseConformance.scenarios();
    }

    @Example
    void concurrentLeasesOnOneKeyGrantExactlyTheCapacity(Reporter reporter) {
        leasing(reporter).ifPresent(LeaseConformance::concurrentLeasesGrantExactlyTheCapacity);
    }

    @Example
    void givenBackTokensNeverOverAdmit(Reporter reporter) {
        leasing(reporter).ifPresent(LeaseConformance::givenBackTokensNeverOverAdmit);
    }

    @Example
    void aSlidingLogLimitIsNeverLeased(Reporter reporter) {
        leasing(reporter).ifPresent(LeaseConformance::aSlidingLogLimitIsNeverLeased);
    }

    /**
     * The lease checks on the store under the virtual clock; when the store does not declare
     * {@code leasing}, checks instead that it refuses to lease (as {@link Store}'s default does)
     * and says so in the report.
     */
    private Optional<LeaseConformance> leasing(Reporter reporter) {
        Fixture fixture = fixture();
        if (!fixture.capabilities.leasing()) {
            reporter.publishValue("leasing", "not declared: checked only that lease is refused");
            Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 10, Duration.ofSeconds(1));
            assertThat(failureOf(fixture.virtualStore.lease(fixture.newKey("lease"), List.of(limit), 1)))
                    .as("a lease on a store whose capabilities do not say leasing").isNotNull();
            return Optional.empty();
        }
        return Optional.of(new LeaseConformance(fixture.virtualStore, fixture.clock,
                () -> fixture.newKey("lease"), StoreConformance::await));
    }

    // ---- capabilities ----------------------------------------------------------------------

    @Example
    void statesItsCapabilities(Reporter reporter) {
        Fixture fixture = fixture();
        StoreCapabilities capabilities = fixture.capabilities;
        assertThat(capabilities).isNotNull();
        assertThat(fixture.ownClockStore().capabilities())
                .as("the capabilities of the store on its own clock must be those of the store on the virtual "
                        + "clock, %s; the store on its own clock stated", capabilities).isEqualTo(capabilities);
        reporter.publishValue("capabilities", capabilities.toString());
    }

    @Example
    void aStoreInProcessAnswersOnTheCallingThread(Reporter reporter) {
        Fixture fixture = fixture();
        if (!fixture.capabilities.inProcess()) {
            reporter.publishValue("inProcess", "not declared: the store's stages may complete later");
            return;
        }
        // The guard calls such a store without a timeout: a stage that is not complete at once breaks that promise.
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofSeconds(1));
        String key = fixture.newKey("in-process");
        CompletionStage<Decision> stage = fixture.virtualStore.tryAcquire(key, List.of(limit), 1);
        assertThat(stage.toCompletableFuture().isDone()).as("the store declares inProcess, but the stage of "
                + "tryAcquire was not complete when returned").isTrue();
        Decision waited = fixture.virtualStore.tryAcquireAndWait(key, List.of(limit), 1);
        Decision expected = new ReferenceModel().tryAcquire(key, List.of(limit), fixture.clock.nowMicros(), 2);
        assertThat(waited).as("tryAcquireAndWait, after tryAcquire of cost 1 against %s at the same time: "
                + "decided as the second token of that limit", limit).isEqualTo(expected);
    }

    @Example
    void aStoreThatBoundsItsWaitDecidesOnTheCallersThreadAsItsStagesDo(Reporter reporter) {
        Fixture fixture = fixture();
        if (fixture.capabilities.waitBound().isZero()) {
            reporter.publishValue("waitBound", "not declared: tryAcquireAndWait waits for the stage of tryAcquire");
            return;
        }
        // A guard calls such a store's tryAcquireAndWait in place of its stage: the two must be one store.
        Limit limit = Limit.of(Algorithms.TOKEN_BUCKET, 2, Duration.ofSeconds(1));
        String key = fixture.newKey("waited");
        await(fixture.virtualStore.tryAcquire(key, List.of(limit), 1));
        Decision second = fixture.virtualStore.tryAcquireAndWait(key, List.of(limit), 1);
        Decision third = fixture.virtualStore.tryAcquireAndWait(key, List.of(limit), 1);
        ReferenceModel reference = new ReferenceModel();
        long now = fixture.clock.nowMicros();
        reference.tryAcquire(key, List.of(limit), now, 1);
        assertThat(second).as("tryAcquireAndWait after tryAcquire of cost 1 against %s at the same time", limit)
                .isEqualTo(reference.tryAcquire(key, List.of(limit), now, 1));
        assertThat(third).as("a third tryAcquireAndWait at the same time")
                .isEqualTo(reference.tryAcquire(key, List.of(limit), now, 1));
    }

    // ---- plumbing --------------------------------------------------------------------------

    /** The virtual clock's start, for checks that need a known phase of the windows. */
    static long startMicros() {
        return START_MICROS;
    }

    /** The failure of a call that must fail: thrown at once or as a failed stage. */
    static Throwable failureOf(CompletionStage<?> stage) {
        try {
            Object value = stage.toCompletableFuture().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("the call must fail; it returned " + value);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            return Objects.requireNonNullElse(e.getCause(), e);
        } catch (TimeoutException e) {
            throw new AssertionError("the store did not answer within " + CALL_TIMEOUT, e);
        }
    }

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
