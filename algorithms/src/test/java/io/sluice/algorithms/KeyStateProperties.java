package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** KeyState on random limits and requests: encoding, all-or-nothing charging, denials read only, expiry. */
class KeyStateProperties {

    record Request(long waitMicros, long cost, int limitCount) {
    }

    record Run(List<Limit> limits, long startMicros, List<Request> requests) {

        /** The limits of a request: a prefix of the run's, so that a key's state also holds limits not in it. */
        List<Limit> limitsOf(Request request) {
            return limits.subList(0, Math.min(request.limitCount(), limits.size()));
        }
    }

    @Provide
    Arbitrary<Run> runs() {
        Arbitrary<Limit> limit = Arbitraries.of(Algorithms.all()).flatMap(Scenarios::smallLimits);
        Arbitrary<List<Limit>> limits = limit.list().ofMinSize(1).ofMaxSize(4).map(list -> {
            List<Limit> named = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                named.add(list.get(i).named("limit-" + i));
            }
            return named;
        });
        Arbitrary<Request> request = Combinators.combine(
                Arbitraries.oneOf(Arbitraries.longs().between(0, 1_000), Arbitraries.longs().between(0, 20_000_000)),
                Arbitraries.oneOf(Arbitraries.just(1L), Arbitraries.longs().between(1, 60)),
                Arbitraries.integers().between(1, 4)).as(Request::new);
        return Combinators.combine(limits, Arbitraries.longs().between(0, 1_000_000_000_000L),
                request.list().ofMaxSize(40)).as((l, start, r) -> new Run(l, Scenarios.EPOCH_2025 + start, r));
    }

    @Property(tries = 200)
    void decidesAllOrNothingAsEachLimitAloneWouldAndRoundTrips(@ForAll("runs") Run run) {
        KeyState state = KeyState.empty();
        long now = run.startMicros();
        for (Request request : run.requests()) {
            now += request.waitMicros();
            List<Limit> limits = run.limitsOf(request);
            byte[] before = state.encode();
            boolean allAdmit = true;
            for (Limit limit : limits) {
                allAdmit &= KeyState.decode(before).tryAcquire(List.of(limit), now, request.cost()).allowed();
            }
            Decision decision = state.tryAcquire(limits, now, request.cost());
            assertThat(decision.allowed()).isEqualTo(allAdmit);
            assertThat(limits).contains(decision.binding());

            byte[] after = state.encode();
            assertThat(KeyState.decode(after).encode()).isEqualTo(after);
            long probe = now + 1_000;
            for (Limit limit : run.limits()) {
                KeyState expected = KeyState.decode(before);
                if (decision.allowed() && limits.contains(limit)) {
                    expected.tryAcquire(List.of(limit), now, request.cost());
                }
                assertThat(KeyState.decode(after).tryAcquire(List.of(limit), probe, 1))
                        .as("limit %s after %s", limit.name(), decision)
                        .isEqualTo(expected.tryAcquire(List.of(limit), probe, 1));
            }
        }
    }

    /**
     * A grid store's member decodes the stored bytes for every request, so a sliding log is
     * admitted into as a splice of its encoding; a local store keeps its state, so the log is
     * admitted into in place: both decide the same, and write the same bytes.
     */
    @Property(tries = 200)
    void aStateDecodedForEveryRequestDecidesAndWritesAsOneKeptInMemory(@ForAll("runs") Run run) {
        KeyState kept = KeyState.empty();
        byte[] stored = kept.encode();
        long now = run.startMicros();
        for (Request request : run.requests()) {
            now += request.waitMicros();
            List<Limit> limits = run.limitsOf(request);
            KeyState decoded = KeyState.decode(stored);
            Decision fromStored = decoded.tryAcquire(limits, now, request.cost());
            assertThat(fromStored).isEqualTo(kept.tryAcquire(limits, now, request.cost()));
            byte[] written = decoded.encode();
            assertThat(written).as("%s at %d", limits, now).isEqualTo(kept.encode());
            assertThat(KeyState.decode(written).encode()).isEqualTo(written);
            stored = written;
        }
    }

    @Property(tries = 200)
    void aDenialIsTryAcquiresDecisionWhenItDeniesAndChangesNothing(@ForAll("runs") Run run) {
        KeyState state = KeyState.empty();
        long now = run.startMicros();
        for (Request request : run.requests()) {
            now += request.waitMicros();
            List<Limit> limits = run.limitsOf(request);
            byte[] before = state.encode();
            // Decoded, a sliding log stays encoded: the denial reads it in place, or a copy of it.
            KeyState decoded = KeyState.decode(before);
            Decision fromDecoded = decoded.denial(limits, now, request.cost());
            Decision denial = state.denial(limits, now, request.cost());
            assertThat(state.encode()).as("the state after a denial's read").isEqualTo(before);
            assertThat(decoded.encode()).as("the decoded state after a denial's read").isEqualTo(before);

            Decision decision = state.tryAcquire(limits, now, request.cost());
            Decision expected = decision.allowed() ? null : decision;
            assertThat(denial).as("%s at %d", limits, now).isEqualTo(expected);
            assertThat(fromDecoded).as("%s at %d, decoded", limits, now).isEqualTo(expected);
        }
    }

    /**
     * Limits that often tie: each a copy of one of two limits under its own name, so that
     * several deny with the same wait, or all find the cost above their capacity, at once.
     */
    @Provide
    Arbitrary<Run> tiedRuns() {
        Arbitrary<Limit> limit = Arbitraries.of(Algorithms.all()).flatMap(Scenarios::smallLimits);
        Arbitrary<List<Limit>> limits = Combinators.combine(limit, limit,
                Arbitraries.integers().between(0, 3).list().ofMinSize(2).ofMaxSize(5)).as((a, b, picks) -> {
                    List<Limit> named = new ArrayList<>();
                    for (int i = 0; i < picks.size(); i++) {
                        named.add((picks.get(i) == 0 ? b : a).named("limit-" + i));
                    }
                    return named;
                });
        Arbitrary<Request> request = Combinators.combine(
                Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(0, 20_000_000)),
                Arbitraries.oneOf(Arbitraries.just(1L), Arbitraries.longs().between(1, 300)),
                Arbitraries.integers().between(2, 5)).as(Request::new);
        return Combinators.combine(limits, Arbitraries.longs().between(0, 1_000_000_000_000L),
                request.list().ofMaxSize(40)).as((l, start, r) -> new Run(l, Scenarios.EPOCH_2025 + start, r));
    }

    /**
     * The reference for a denial read over several limits, which ranks them from the last back
     * and builds only the binding limit's decision: each limit decided alone, and of those that
     * deny, the first whose cost exceeds its capacity, else the first of the longest wait.
     */
    @Property(tries = 300)
    void aDenialBindsTheFirstOfTheLimitsThatDenyLongestEachDecidedAlone(@ForAll("tiedRuns") Run run) {
        KeyState state = KeyState.empty();
        long now = run.startMicros();
        for (Request request : run.requests()) {
            now += request.waitMicros();
            List<Limit> limits = run.limitsOf(request);
            byte[] before = state.encode();
            Decision expected = null;
            for (Limit limit : limits) {
                Decision alone = KeyState.decode(before).tryAcquire(List.of(limit), now, request.cost());
                if (!alone.allowed() && (expected == null || binds(alone, expected))) {
                    expected = alone;
                }
            }
            assertThat(state.denial(limits, now, request.cost())).as("%s at %d", limits, now).isEqualTo(expected);
            state.tryAcquire(limits, now, request.cost());
        }
    }

    /** Whether a later limit's denial binds rather than an earlier one's: the cost first, then a longer wait. */
    private static boolean binds(Decision later, Decision earlier) {
        if (earlier.reason() == Decision.Reason.COST_EXCEEDS_CAPACITY) {
            return false;
        }
        return later.reason() == Decision.Reason.COST_EXCEEDS_CAPACITY
                || later.retryAfter().orElseThrow().compareTo(earlier.retryAfter().orElseThrow()) > 0;
    }

    @Property(tries = 200)
    void holdsEachStateUntilItExpires(@ForAll("runs") Run run) {
        KeyState state = KeyState.empty();
        long now = run.startMicros();
        for (Request request : run.requests()) {
            now += request.waitMicros();
            state.tryAcquire(run.limits(), now, request.cost());
        }
        long expiresAt = state.expiresAtMicros();
        assertThat(state.isEmpty()).isEqualTo(expiresAt == 0);
        if (state.isEmpty()) {
            return;
        }
        assertThat(run.limits()).anySatisfy(limit -> assertThat(state.holds(limit.name(), expiresAt - 1)).isTrue());
        assertThat(run.limits()).allSatisfy(limit -> assertThat(state.holds(limit.name(), expiresAt)).isFalse());
        // A fresh state equals an expired one: a request at the expiry drops them all and keeps only its own.
        Limit other = Limit.of(Algorithms.GCRA, 1, java.time.Duration.ofSeconds(1)).named("other");
        state.tryAcquire(List.of(other), expiresAt, 1);
        assertThat(run.limits()).allSatisfy(limit -> assertThat(state.holds(limit.name(), expiresAt)).isFalse());
        assertThat(state.holds("other", expiresAt)).isTrue();
        assertThat(KeyState.decode(state.encode()).expiresAtMicros()).isEqualTo(expiresAt + 1_000_000);
    }
}
