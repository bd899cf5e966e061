package io.sluice.store.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.testkit.VirtualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many threads on one key, where denials are read without the key's lock while admissions
 * change the state under it: at each instant of a virtual clock the store admits exactly what
 * one thread deciding the same requests in turn admits, and denies with the same figures.
 *
 * <p>At one instant every request of cost 1 is decided as any other, so the count admitted
 * does not depend on the threads' order, and an answer no single thread could give (one
 * admission too many, a denial's figures that no state had) fails it. The limits include one
 * of a millisecond, which expires between instants, so that the first admission of each
 * instant drops and adds a state, moving the others in their arrays while other threads read
 * them. A stale read that did not overlap a change is a right answer at its instant; only a
 * torn one, in a window of a few stores, is wrong, so this test does not prove the stamp's
 * check (a copy without it passed too): the check is StampedLock's documented idiom.
 */
class HotKeyConcurrencyTest {

    private static final long START_MICROS = 1_767_225_600_000_000L;
    private static final int THREADS = 8;
    private static final int REQUESTS_PER_THREAD = 40;
    private static final int INSTANTS = 150;
    /** Between instants: three requests' worth of a bucket of 100 per second. */
    private static final long STEP_MICROS = 30_000;

    static Stream<List<Limit>> limits() {
        return Algorithms.all().stream().flatMap(algorithm -> Stream.of(
                List.of(perSecond(algorithm)),
                List.of(Limit.of(Algorithms.FIXED_WINDOW, 1_000, Duration.ofMillis(1)).named("millisecond"),
                        perSecond(algorithm),
                        Limit.of(Algorithms.FIXED_WINDOW, 1_000_000, Duration.ofDays(1)).named("day"),
                        Limit.of(algorithm, 1_000, Duration.ofMinutes(1)).named("minute"))));
    }

    private static Limit perSecond(Algorithm algorithm) {
        return Limit.of(algorithm, 100, Duration.ofSeconds(1)).named("second");
    }

    @ParameterizedTest
    @MethodSource("limits")
    void admitsAndDeniesAtEachInstantExactlyAsOneThreadWould(List<Limit> limits) throws Exception {
        VirtualClock clock = new VirtualClock(START_MICROS);
        KeyState reference = KeyState.empty();
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try (Store store = LocalStore.builder().clockForTesting(clock).build()) {
            long admittedInAll = 0;
            for (int instant = 0; instant < INSTANTS; instant++) {
                List<Decision> expected = new ArrayList<>();
                for (int i = 0; i < THREADS * REQUESTS_PER_THREAD; i++) {
                    expected.add(reference.tryAcquire(limits, clock.nowMicros(), 1));
                }
                long admitted = expected.stream().filter(Decision::allowed).count();
                Decision denial = expected.get(expected.size() - 1);
                assertThat(denial.allowed()).as("every instant ends in denials").isFalse();

                List<Decision> decided = decideAtOnce(threads, store, limits);
                assertThat(decided.stream().filter(Decision::allowed).count())
                        .as("admitted at instant %d", instant).isEqualTo(admitted);
                assertThat(decided.stream().filter(decision -> !decision.allowed()))
                        .as("denials at instant %d", instant).allMatch(denial::equals);
                admittedInAll += admitted;
                clock.advanceMicros(STEP_MICROS);
            }
            assertThat(admittedInAll).as("admitted after the first instant too").isGreaterThan(100);
        } finally {
            threads.shutdownNow();
            assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** Every thread's requests on the hot key, started together, as decided. */
    private static List<Decision> decideAtOnce(ExecutorService threads, Store store, List<Limit> limits)
            throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<List<Decision>>> each = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            each.add(threads.submit(() -> {
                start.await(10, TimeUnit.SECONDS);
                List<Decision> decisions = new ArrayList<>(REQUESTS_PER_THREAD);
                for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
                    decisions.add(store.tryAcquireAndWait("hot", limits, 1));
                }
                return decisions;
            }));
        }
        List<Decision> decided = new ArrayList<>();
        for (Future<List<Decision>> decisions : each) {
            decided.addAll(decisions.get(30, TimeUnit.SECONDS));
        }
        return decided;
    }
}
