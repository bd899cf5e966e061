package io.sluice.algorithms;

import static io.sluice.algorithms.AlgorithmProperties.assertSameDecision;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.algorithms.ChunkedLog.Flush;
import io.sluice.algorithms.ChunkedLog.Outcome;
import io.sluice.algorithms.Scenarios.Scenario;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * A sliding log kept as a head and chunks ({@link ChunkedLog}) against the plain log: the same
 * decisions (and retry times) over random costs, times, periods and chunk sizes, whatever the
 * callers do with the flushes they are asked for: written and acknowledged at once or late,
 * written and never acknowledged, never written, written and acknowledged twice, acknowledged
 * in a later life of the key. A chunk the head asks for was written, every writer of a chunk
 * writes the same entries, and a decision reads at most two chunks.
 */
class ChunkedLogProperties {

    /** What a caller does with the flushes asked of it, before a request. */
    private enum Caller { NOTHING, WRITE_OLDEST, ACK_OLDEST, WRITE_AND_ACK_NEWEST, LOSE_WRITE, LOSE_ACK, ACK_AGAIN }

    private record ChunkKey(long birth, long index) {
    }

    /**
     * Permits from 8 to 40 and requests mostly of cost 1 about as often as the limit allows, so
     * that logs outgrow a few chunks and their oldest entries expire a few at a time; now and
     * then a long wait, a large cost, or the clock going back.
     */
    @Provide
    Arbitrary<Scenario> runs() {
        Arbitrary<Limit> limits = Combinators.combine(Arbitraries.longs().between(8, 40),
                        Arbitraries.longs().between(1_000, 1_000_000))
                .as((permits, period) -> Limit.of(Algorithms.SLIDING_LOG, permits, Duration.ofNanos(period * 1_000)));
        return limits.flatMap(limit -> {
            long period = limit.periodMicros();
            long interval = period / limit.permits();
            Arbitrary<Long> wait = Arbitraries.frequencyOf(
                    Tuple.of(2, Arbitraries.just(0L)),
                    Tuple.of(12, Arbitraries.longs().between(1, 2 * interval)),
                    Tuple.of(1, Arbitraries.longs().between(1, 2 * period)),
                    Tuple.of(1, Arbitraries.longs().between(-period, -1)));
            Arbitrary<Long> cost = Arbitraries.frequencyOf(
                    Tuple.of(12, Arbitraries.just(1L)),
                    Tuple.of(2, Arbitraries.longs().between(1, limit.permits())),
                    Tuple.of(1, Arbitraries.just(limit.permits() + 1)));
            return Combinators.combine(wait, cost).as(Scenarios.Step::new).list().ofMinSize(100).ofMaxSize(400)
                    .map(steps -> new Scenario(limit, Scenarios.EPOCH_2025, steps));
        });
    }

    @Provide
    Arbitrary<List<Caller>> callers() {
        return Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(Caller.NOTHING)),
                Tuple.of(2, Arbitraries.just(Caller.WRITE_OLDEST)),
                Tuple.of(2, Arbitraries.just(Caller.ACK_OLDEST)),
                Tuple.of(4, Arbitraries.just(Caller.WRITE_AND_ACK_NEWEST)),
                Tuple.of(1, Arbitraries.just(Caller.LOSE_WRITE)),
                Tuple.of(1, Arbitraries.just(Caller.LOSE_ACK)),
                Tuple.of(1, Arbitraries.just(Caller.ACK_AGAIN)))
                .list().ofSize(400);
    }

    @Property(tries = 1000)
    void decidesAsThePlainLogWhateverTheCallersDoWithTheFlushes(@ForAll("runs") Scenario scenario,
                                                               @ForAll("callers") List<Caller> callers,
                                                               @ForAll @IntRange(min = 1, max = 4) int chunkEntries,
                                                               @ForAll boolean nearRebase) {
        ChunkedLog chunked = new ChunkedLog(chunkEntries);
        Limit limit = scenario.limit();
        Map<ChunkKey, long[]> store = new HashMap<>();
        List<Flush> asked = new ArrayList<>();
        List<Flush> written = new ArrayList<>();
        Flush lastAcked = null;
        // A log whose totals are about to be rebased (SlidingLog.REBASE_ABOVE), or none.
        long[] plain = nearRebase ? new long[] {SlidingLog.TAG, SlidingLog.REBASE_ABOVE - 20} : null;
        long[] head = plain;
        long expiresAt = Long.MIN_VALUE;
        long now = scenario.startMicros();
        int reads = 0;
        for (int step = 0; step < scenario.steps().size(); step++) {
            Scenarios.Step request = scenario.steps().get(step);
            now += request.waitMicros();
            switch (callers.get(step)) {
                case WRITE_OLDEST -> {
                    if (!asked.isEmpty()) {
                        written.add(write(store, asked.remove(0)));
                    }
                }
                case ACK_OLDEST -> {
                    if (!written.isEmpty() && head != null) {
                        lastAcked = written.remove(0);
                        head = chunked.acked(head, lastAcked);
                    }
                }
                case WRITE_AND_ACK_NEWEST -> {
                    if (!asked.isEmpty() && head != null) {
                        lastAcked = write(store, asked.remove(asked.size() - 1));
                        head = chunked.acked(head, lastAcked);
                    }
                }
                case LOSE_WRITE -> {
                    if (!asked.isEmpty()) {
                        asked.remove(0);
                    }
                }
                case LOSE_ACK -> {
                    if (!written.isEmpty()) {
                        written.remove(0);
                    }
                }
                case ACK_AGAIN -> {
                    if (lastAcked != null && head != null) {
                        head = chunked.acked(head, write(store, lastAcked));
                    }
                }
                default -> {
                }
            }
            if (now >= expiresAt && expiresAt != Long.MIN_VALUE) {
                // As KeyState drops a state at its expiry (both: the clock may go back): the next head is of a new life.
                head = null;
                plain = null;
            }
            Transition expected = Algorithms.SLIDING_LOG.transition(plain, now, limit, request.cost());
            Set<Long> read = new HashSet<>();
            long[] current = head;
            Outcome outcome = chunked.decide(current, now, limit, request.cost(), index -> null);
            while (outcome.needsChunk()) {
                long birth = ChunkedLog.birth(current);
                assertThat(store.get(new ChunkKey(birth, outcome.neededChunk())))
                        .as("chunk %d, asked for, was written", outcome.neededChunk()).isNotNull();
                assertThat(read.add(outcome.neededChunk())).as("a chunk is asked for once").isTrue();
                Set<Long> supplied = Set.copyOf(read);
                outcome = chunked.decide(current, now, limit, request.cost(),
                        index -> supplied.contains(index) ? store.get(new ChunkKey(birth, index)) : null);
            }
            assertThat(read).as("chunks read by one decision").hasSizeLessThanOrEqualTo(2);
            reads += read.size();
            Transition actual = outcome.transition();
            assertThat(actual).isNotNull();
            assertSameDecision(actual, expected);
            if (expected.allowed()) {
                plain = expected.state();
                expiresAt = now + actual.resetAfterMicros();
            }
            head = outcome.state();
            if (outcome.flush() != null) {
                asked.add(outcome.flush());
            }
        }
        Statistics.label("chunks read").collect(reads == 0 ? "none" : reads < 10 ? "1-9" : "10+");
        Statistics.label("chunks written").collect(store.isEmpty() ? "none" : store.size() < 10 ? "1-9" : "10+");
    }

    /** Writes a chunk as a caller does, checking that any earlier writer of its key wrote the same entries. */
    private static Flush write(Map<ChunkKey, long[]> store, Flush flush) {
        long[] before = store.put(new ChunkKey(flush.birth(), flush.index()), flush.entries());
        if (before != null) {
            assertThat(flush.entries()).as("chunk %d written again", flush.index()).isEqualTo(before);
        }
        return flush;
    }
}
