package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.jspecify.annotations.Nullable;

/**
 * Decisions sent with chunks ({@link GridChunks}) and run on the owner's stored bytes, by a
 * caller that writes the chunks it is asked to, acknowledges them with its next request and
 * reads the chunks the owner needs: the same decisions as a whole log decided without chunks,
 * singly and in batches that stop at the decision needing a chunk, with a bounded stored value.
 */
class GridChunksProperties {

    private static final long EPOCH = 1_764_000_000_000_000L;
    private static final Limit LOG = Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofSeconds(1)).named("log");
    private static final Limit BUCKET = Limit.of(Algorithms.TOKEN_BUCKET, 1_000, Duration.ofSeconds(1)).named("bucket");

    record Request(long waitMicros, long cost, int batch) {
    }

    /** Requests about at the log's rate (now and then a long wait or a larger cost), 1-3 to a call. */
    @Provide
    Arbitrary<List<Request>> requests() {
        Arbitrary<Long> wait = Arbitraries.frequencyOf(
                Tuple.of(20, Arbitraries.just(0L)),
                Tuple.of(400, Arbitraries.longs().between(1, 2_000)),
                Tuple.of(1, Arbitraries.longs().between(1, 2_000_000)));
        Arbitrary<Long> cost = Arbitraries.frequencyOf(
                Tuple.of(400, Arbitraries.just(1L)),
                Tuple.of(1, Arbitraries.longs().between(1, 100)));
        Arbitrary<Integer> batch = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(1)),
                Tuple.of(1, Arbitraries.integers().between(2, 3)));
        return Combinators.combine(wait, cost, batch).as(Request::new).list().ofMinSize(1_000).ofMaxSize(3_000);
    }

    @Property(tries = 20, edgeCases = EdgeCasesMode.NONE)
    void decidesAsTheWholeLogWithABoundedValue(@ForAll("requests") List<Request> requests,
                                               @ForAll boolean beside) {
        List<Limit> limits = beside ? List.of(BUCKET, LOG) : List.of(LOG);
        KeyState whole = KeyState.empty();
        Caller caller = new Caller(limits);
        long now = EPOCH;
        int at = 0;
        while (at < requests.size()) {
            now += requests.get(at).waitMicros();
            int size = Math.min(requests.get(at).batch(), requests.size() - at);
            List<Decision> expected = new ArrayList<>();
            List<Long> costs = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                long cost = requests.get(at + i).cost();
                costs.add(cost);
                expected.add(whole.tryAcquire(limits, now, cost));
            }
            assertThat(caller.decide(costs, now)).isEqualTo(expected);
            at += size;
        }
        assertThat(caller.largestValue).as("the largest value stored").isLessThan(6_000);
        Statistics.label("chunks read").collect(caller.reads == 0 ? "none" : caller.reads < 10 ? "1-9" : "10+");
        Statistics.label("chunks written").collect(caller.written.size() < 10 ? "0-9" : "10+");
    }

    /** A request with chunks run in place keeps whole logs: the decisions of a plain one, nothing to write or read. */
    @Example
    void inPlaceTheLogStaysWhole() {
        KeyState held = KeyState.empty();
        KeyState reference = KeyState.empty();
        long now = EPOCH;
        for (int i = 0; i < 1_500; i++) {
            now += 900;
            GridOperation operation = GridOperation.withChunks(GridOperation.decide(List.of(LOG), 1, now),
                    List.of(), List.of());
            GridChunks.Reply reply = GridChunks.Reply.decode(operation.runInPlace(held, () -> 0).reply(), 1);
            assertThat(reply.needed()).isNull();
            assertThat(reply.flushes()).isEmpty();
            assertThat(GridReply.decode(reply.decided(), List.of(LOG))).isEqualTo(reference.tryAcquire(List.of(LOG), now, 1));
        }
    }

    /** A caller without chunks never reads a head as a fresh log, nor does an earlier member read a request with chunks. */
    @Example
    void aHeadAndARequestWithChunksAreRefusedByThoseWithoutChunks() {
        Caller caller = new Caller(List.of(LOG));
        long now = EPOCH;
        for (int i = 0; i < 300; i++) {
            now += 900;
            caller.decide(List.of(1L), now);
        }
        byte[] head = caller.stored;
        long later = now + 900;
        assertThatThrownBy(() -> GridOperation.decide(List.of(LOG), 1, later).run(head, () -> 0))
                .isInstanceOf(IllegalStateException.class);
        byte[] withChunks = GridOperation.withChunks(GridOperation.decide(List.of(LOG), 1, later), List.of(), List.of())
                .request();
        assertThatThrownBy(() -> GridRequest.decode(withChunks)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 3");
    }

    @Example
    void requestsAndRepliesThatCannotBeReadAreRefused() {
        byte[] request = GridOperation.withChunks(GridOperation.decide(List.of(LOG), 1, EPOCH),
                List.of(new GridChunks.Ack("log", EPOCH, 0, EPOCH)),
                List.of(new GridChunks.Chunk("log", EPOCH, 1, new long[] {EPOCH, 1}))).request();
        GridChunks.Request read = GridChunks.Request.decode(request);
        assertThat(read.acks()).containsExactly(new GridChunks.Ack("log", EPOCH, 0, EPOCH));
        assertThat(read.chunks()).containsExactly(new GridChunks.Chunk("log", EPOCH, 1, new long[] {EPOCH, 1}));
        assertThat(read.operation()).isEqualTo(GridOperation.decide(List.of(LOG), 1, EPOCH).request());
        // The decision's own bytes, last, are read by GridRequest.decode: truncated up to them.
        for (int length = 1; length <= request.length - read.operation().length; length++) {
            byte[] truncated = Arrays.copyOf(request, length);
            assertThatThrownBy(() -> GridChunks.Request.decode(truncated)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> GridOperation.withChunks(GridOperation.decisionOnWire(request), List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        long[] reply = new GridChunks.Reply(new long[GridReply.LENGTH], null,
                List.of(new GridChunks.Reply.Flush(0, 0, EPOCH, 2, new long[] {EPOCH, 1}))).encode();
        assertThat(GridChunks.Reply.decode(reply, 1).flushes()).hasSize(1);
        assertThatThrownBy(() -> GridChunks.Reply.decode(reply, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs no chunk");
        assertThatThrownBy(() -> GridChunks.Reply.decode(Arrays.copyOf(reply, reply.length - 1), 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * What a grid store's caller does: sends its decisions with the acknowledgements of the
     * chunks it wrote since; writes the chunks it is asked to; on a need, reads the chunk and
     * sends the decisions not made yet again, with it. The owner's value is kept as bytes.
     */
    private static final class Caller {
        private final List<Limit> limits;
        private final Map<String, long[]> written = new HashMap<>();
        private final List<GridChunks.Ack> acks = new ArrayList<>();
        private byte @Nullable [] stored;
        private int largestValue;
        private int reads;

        Caller(List<Limit> limits) {
            this.limits = limits;
        }

        List<Decision> decide(List<Long> costs, long now) {
            List<GridOperation> remaining = new ArrayList<>();
            for (long cost : costs) {
                remaining.add(GridOperation.decide(limits, cost, now));
            }
            List<GridChunks.Chunk> read = new ArrayList<>();
            List<Decision> decisions = new ArrayList<>();
            while (true) {
                GridOperation decisionsSent = remaining.size() == 1 ? remaining.get(0) : GridOperation.batch(remaining);
                GridOperation sent = GridOperation.withChunks(decisionsSent, List.copyOf(acks), read);
                acks.clear();
                GridRequest.Outcome outcome = GridOperation.decisionOnWire(sent.request()).run(stored, () -> 0);
                if (outcome.write()) {
                    stored = outcome.state();
                    largestValue = Math.max(largestValue, stored == null ? 0 : stored.length);
                }
                GridChunks.Reply reply = GridChunks.Reply.decode(outcome.reply(), remaining.size());
                for (int i = 0; i < reply.decidedCount(); i++) {
                    long[] one = Arrays.copyOfRange(reply.decided(), i * GridReply.LENGTH, (i + 1) * GridReply.LENGTH);
                    decisions.add(GridReply.decode(one, limits));
                }
                for (GridChunks.Reply.Flush flush : reply.flushes()) {
                    String limit = limits.get(flush.limit()).name();
                    long[] before = written.put(name(limit, flush.birth(), flush.index()), flush.entries());
                    assertThat(before == null || Arrays.equals(before, flush.entries()))
                            .as("a chunk written again holds the same entries").isTrue();
                    acks.add(new GridChunks.Chunk(limit, flush.birth(), flush.index(), flush.entries()).ack());
                }
                GridChunks.Reply.Needed needed = reply.needed();
                if (needed == null) {
                    return decisions;
                }
                String limit = limits.get(needed.limit()).name();
                long[] chunk = written.get(name(limit, needed.birth(), needed.index()));
                assertThat(chunk).as("the chunk needed was written").isNotNull();
                read.add(new GridChunks.Chunk(limit, needed.birth(), needed.index(), chunk));
                reads++;
                remaining = remaining.subList(reply.decidedCount(), remaining.size());
            }
        }

        private static String name(String limit, long birth, long index) {
            return limit + "/" + birth + "/" + index;
        }
    }
}
