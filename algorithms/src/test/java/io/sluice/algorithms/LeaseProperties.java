package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Lease;
import io.sluice.api.Limit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * KeyState's leases on random limits and traffic: a lease is the largest batch every limit
 * admits, charged like a request of that cost, and giving back unused tokens never lets a
 * key admit more than the reference that charged only the spent tokens, at the lease's time.
 */
class LeaseProperties {

    private static final List<io.sluice.api.Algorithm> LEASABLE = List.of(Algorithms.FIXED_WINDOW,
            Algorithms.SLIDING_WINDOW_COUNTER, Algorithms.TOKEN_BUCKET, Algorithms.GCRA);

    /** A request of {@code cost}, or when {@code maxTokens > 0} a lease of which {@code unusedPercent} goes back {@code returnAfter} later. */
    record Step(long waitMicros, long cost, long maxTokens, int unusedPercent, long returnAfterMicros) {
    }

    record Run(List<Limit> limits, long startMicros, List<Step> steps) {
    }

    /** A lease's tokens waiting to be given back. */
    record Pending(long dueMicros, long takenAtMicros, long unused) {
    }

    @Provide
    Arbitrary<Run> runs() {
        Arbitrary<Limit> limit = Arbitraries.of(LEASABLE).flatMap(Scenarios::smallLimits);
        Arbitrary<List<Limit>> limits = limit.list().ofMinSize(1).ofMaxSize(3).map(list -> {
            List<Limit> named = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                named.add(list.get(i).named("limit-" + i));
            }
            return named;
        });
        Arbitrary<Step> step = Combinators.combine(
                Arbitraries.oneOf(Arbitraries.longs().between(0, 1_000), Arbitraries.longs().between(0, 20_000_000)),
                Arbitraries.oneOf(Arbitraries.just(1L), Arbitraries.longs().between(1, 30)),
                Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(1, Arbitraries.just(0L)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(1, 300))),
                Arbitraries.integers().between(0, 100),
                Arbitraries.oneOf(Arbitraries.longs().between(0, 1_000), Arbitraries.longs().between(0, 20_000_000)))
                .as(Step::new);
        return Combinators.combine(limits, Arbitraries.longs().between(0, 1_000_000_000_000L),
                step.list().ofMaxSize(40)).as((l, start, s) -> new Run(l, Scenarios.EPOCH_2025 + start, s));
    }

    @Property(tries = 300)
    void leaseIsTheLargestBatchEveryLimitAdmitsChargedLikeARequest(@ForAll("runs") Run run) {
        KeyState state = KeyState.empty();
        long now = run.startMicros();
        for (Step step : run.steps()) {
            now += step.waitMicros();
            if (step.maxTokens() == 0) {
                state.tryAcquire(run.limits(), now, step.cost());
                continue;
            }
            byte[] before = state.encode();
            Lease lease = state.lease(run.limits(), now, step.maxTokens());
            assertThat(lease.takenAtMicros()).isEqualTo(now);
            assertThat(lease.tokens()).isBetween(0L, step.maxTokens());
            if (lease.tokens() == 0) {
                KeyState denied = KeyState.decode(before);
                assertThat(denied.tryAcquire(run.limits(), now, 1)).isEqualTo(lease.decision());
                assertThat(state.encode()).as("nothing charged").isEqualTo(denied.encode());
                continue;
            }
            KeyState asRequest = KeyState.decode(before);
            assertThat(asRequest.tryAcquire(run.limits(), now, lease.tokens())).isEqualTo(lease.decision());
            assertThat(asRequest.encode()).isEqualTo(state.encode());
            if (lease.tokens() < step.maxTokens()) {
                assertThat(KeyState.decode(before).tryAcquire(run.limits(), now, lease.tokens() + 1).allowed())
                        .as("a lease of %s when %s were asked for", lease.tokens(), step.maxTokens())
                        .isFalse();
            }
        }
    }

    @Property(tries = 300)
    void leasingAndGivingBackNeverAdmitsMoreThanChargingOnlyTheSpentTokens(@ForAll("runs") Run run) {
        KeyState leased = KeyState.empty();
        KeyState reference = KeyState.empty();
        List<Limit> limits = run.limits();
        Deque<Pending> pending = new ArrayDeque<>();
        long now = run.startMicros();
        for (Step step : run.steps()) {
            now += step.waitMicros();
            while (!pending.isEmpty() && pending.peekFirst().dueMicros() <= now) {
                Pending back = pending.removeFirst();
                leased.giveBack(limits, now, back.takenAtMicros(), back.unused());
            }
            assertThat(available(leased, limits, now)).as("tokens available with leases vs without")
                    .isLessThanOrEqualTo(available(reference, limits, now));
            if (step.maxTokens() == 0) {
                // Requests the leasing side admits are charged to both, so the two see the same traffic.
                if (leased.tryAcquire(limits, now, step.cost()).allowed()) {
                    assertThat(reference.tryAcquire(limits, now, step.cost()).allowed())
                            .as("admitted with leases, denied without: %s at %s", step, now).isTrue();
                }
                continue;
            }
            Lease lease = leased.lease(limits, now, step.maxTokens());
            long unused = lease.tokens() * step.unusedPercent() / 100;
            long spent = lease.tokens() - unused;
            if (spent > 0) {
                assertThat(reference.tryAcquire(limits, now, spent).allowed()).isTrue();
            }
            if (unused > 0) {
                Pending back = new Pending(now + step.returnAfterMicros(), now, unused);
                List<Pending> ordered = new ArrayList<>(pending);
                ordered.add(back);
                ordered.sort((a, b) -> Long.compare(a.dueMicros(), b.dueMicros()));
                pending.clear();
                pending.addAll(ordered);
            }
        }
    }

    /** The tokens every limit admits now, as a lease would take them, without charging them. */
    private static long available(KeyState state, List<Limit> limits, long now) {
        return KeyState.decode(state.encode()).lease(limits, now, Long.MAX_VALUE / 4).tokens();
    }

    @Property(tries = 50)
    void aSlidingLogLimitIsNeverLeased(@ForAll("runs") Run run) {
        List<Limit> limits = new ArrayList<>(run.limits());
        limits.add(Limit.of(Algorithms.SLIDING_LOG, 10, java.time.Duration.ofSeconds(1)).named("log"));
        KeyState state = KeyState.empty();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> state.lease(limits, run.startMicros(), 5))
                .withMessageContaining("'log' uses sliding-log, which cannot be leased");
        assertThat(Arrays.asList(Leasing.supportsAll(limits), Leasing.supportsAll(run.limits())))
                .containsExactly(false, true);
    }
}
