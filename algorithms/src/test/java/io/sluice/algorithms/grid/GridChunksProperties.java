package io.sluice.algorithms.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.algorithms.Algorithms;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;
import org.jspecify.annotations.Nullable;

/**
 * Decisions sent with chunks ({@link GridChunks}) by a grid store's caller ({@link ChunkedSends})
 * and run on the owner's stored bytes, the caller writing the chunks it is asked to (some writes
 * failing), acknowledging them with its next request and reading the chunks the owner needs: the same decisions as a whole log decided without chunks,
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
                                               @ForAll boolean beside,
                                               @ForAll @IntRange(min = 0, max = 4) int failEvery) {
        List<Limit> limits = beside ? List.of(BUCKET, LOG) : List.of(LOG);
        KeyState whole = KeyState.empty();
        Caller caller = new Caller(limits, failEvery == 0 ? 0 : failEvery + 1);
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
        Statistics.label("chunk writes failed").collect(caller.sends.failedWrites() > 0);
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
        Caller caller = new Caller(List.of(LOG), 0);
        long now = EPOCH;
        for (int i = 0; i < 300; i++) {
            now += 900;
            caller.decide(List.of(1L), now);
        }
        byte[] head = caller.stored.get("k");
        long later = now + 900;
        assertThatThrownBy(() -> GridOperation.decide(List.of(LOG), 1, later).run(head, () -> 0))
                .isInstanceOf(IllegalStateException.class);
        byte[] withChunks = GridOperation.withChunks(GridOperation.decide(List.of(LOG), 1, later), List.of(), List.of())
                .request();
        assertThatThrownBy(() -> GridRequest.decode(withChunks)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version " + GridChunks.CHUNKED_FORMAT);
    }

    /** A chunk's entries, whatever they are (even decreasing, or at the ends of a long's range), read as sent. */
    @Property(tries = 200)
    void aChunkIsReadAsItWasSent(@ForAll("entries") long[] entries) {
        GridChunks.Chunk chunk = new GridChunks.Chunk("log", EPOCH, 7, entries);
        byte[] request = GridOperation.withChunks(GridOperation.decide(List.of(LOG), 1, EPOCH), List.of(),
                List.of(chunk, chunk)).request();
        GridChunks.Request read = GridChunks.Request.decode(request);
        assertThat(read.chunks()).containsExactly(chunk, chunk);
        assertThat(read.operation()).isEqualTo(GridOperation.decide(List.of(LOG), 1, EPOCH).request());
    }

    @Provide
    Arbitrary<long[]> entries() {
        Arbitrary<Long> any = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs()),
                Tuple.of(1, Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L)),
                Tuple.of(3, Arbitraries.longs().between(EPOCH, EPOCH + 1_000)));
        return any.array(long[].class).ofMinSize(1).ofMaxSize(64).map(half -> {
            long[] pairs = new long[2 * half.length];
            for (int i = 0; i < half.length; i++) {
                pairs[2 * i] = half[i];
                pairs[2 * i + 1] = half[half.length - 1 - i];
            }
            return pairs;
        });
    }

    /** A chunk kept with a key's denials goes with each: its entries a byte or two each, not 8. */
    @Example
    void aChunkOfEntriesAFewMicrosecondsApartIsAFewBytesAnEntry() {
        long[] entries = new long[2 * 64];
        for (int i = 0; i < 64; i++) {
            entries[2 * i] = EPOCH + 10L * i;
            entries[2 * i + 1] = i + 1;
        }
        byte[] plain = GridOperation.withChunks(GridOperation.decide(List.of(LOG), 1, EPOCH), List.of(), List.of())
                .request();
        byte[] withChunk = GridOperation.withChunks(GridOperation.decide(List.of(LOG), 1, EPOCH), List.of(),
                List.of(new GridChunks.Chunk("log", EPOCH, 0, entries))).request();
        // The chunk's name, birth, index and count take 27 bytes, its first time 8 and every other
        // long 1: 162 bytes, against 1,051 with 8 bytes a long.
        assertThat(withChunk.length - plain.length).isLessThan(200);
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
     * Keys that get no next decision after a chunk was written keep its acknowledgement for a
     * period, not for ever: a sweep after the period drops them, and a key that comes back
     * later still decides as the whole log.
     */
    @Example
    void theAcknowledgementsOfKeysThatGoIdleAreDroppedAPeriodAfterTheirWrite() {
        Caller caller = new Caller(List.of(LOG), 0);
        KeyState whole = KeyState.empty();
        long now = EPOCH;
        int firstKeysDecisions = 0;
        for (int key = 0; key < 20; key++) {
            // Each goes idle right after a decision whose chunk was written (its acknowledgement waits).
            int decisions = 0;
            do {
                now += 900;
                caller.decide("idle-" + key, List.of(1L), now);
                decisions++;
            } while (caller.sends.keysHeld() <= key && decisions < 1_000);
            if (key == 0) {
                firstKeysDecisions = decisions;
            }
        }
        assertThat(caller.sends.keysHeld()).as("idle keys with an acknowledgement waiting").isEqualTo(20);
        caller.nanos += LOG.periodMicros() * 1_000;
        long writesBefore = caller.written.size();
        while (caller.written.size() - writesBefore <= ChunkedSends.SWEEP_EVERY) {
            now += 900;
            assertThat(caller.decide("busy", List.of(1L), now))
                    .containsExactly(whole.tryAcquire(List.of(LOG), now, 1));
        }
        assertThat(caller.sends.keysHeld()).as("the busy key's acknowledgements waiting and chunk kept")
                .isLessThanOrEqualTo(2);
        KeyState idle = KeyState.empty();
        long at = EPOCH;
        for (int i = 0; i < firstKeysDecisions; i++) {
            at += 900;
            idle.tryAcquire(List.of(LOG), at, 1);
        }
        for (int i = 0; i < 300; i++) {
            at += 900;
            assertThat(caller.decide("idle-0", List.of(1L), at)).as("idle-0's decision %s", i)
                    .containsExactly(idle.tryAcquire(List.of(LOG), at, 1));
        }
    }

    /**
     * After a burst fills the log, its oldest entries are in a chunk that every denial needs for
     * its retry time: the caller reads it once and sends it with the denials that follow, one
     * call each, as the whole log decides.
     */
    @Example
    void theDenialsAfterABurstReadTheirChunkOnceAndGoInOneCallEach() {
        Caller caller = new Caller(List.of(LOG), 0);
        KeyState whole = KeyState.empty();
        long now = EPOCH;
        for (int i = 0; i < 1_000; i++) {
            now += 10;
            assertThat(caller.decide(List.of(1L), now)).containsExactly(whole.tryAcquire(List.of(LOG), now, 1));
        }
        int readsBefore = caller.reads;
        int callsBefore = caller.calls;
        for (int i = 0; i < 300; i++) {
            now += 10;
            Decision expected = whole.tryAcquire(List.of(LOG), now, 1);
            assertThat(expected.allowed()).isFalse();
            assertThat(caller.decide(List.of(1L), now)).as("denial %s", i).containsExactly(expected);
        }
        assertThat(caller.reads - readsBefore).as("chunks read").isEqualTo(1);
        assertThat(caller.calls - callsBefore).as("calls").isEqualTo(301);
        now += LOG.periodMicros();
        assertThat(caller.decide(List.of(1L), now)).as("an admission once the burst expired")
                .containsExactly(whole.tryAcquire(List.of(LOG), now, 1));
    }

    /** A chunk the owner needs and the grid lost fails the decision, as the store being unavailable. */
    @Example
    void aMissingChunkIsTheStoreUnavailable() {
        Caller caller = new Caller(List.of(LOG), 0);
        long now = EPOCH;
        for (int i = 0; i < 1_000; i++) {
            now += 900;
            caller.decide(List.of(1L), now);
        }
        assertThat(caller.written).isNotEmpty();
        caller.written.clear();
        long denied = now + 1;
        assertThatThrownBy(() -> caller.decide(List.of(1L), denied)).hasCauseInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("missing");
    }

    /**
     * A grid store's caller ({@link ChunkedSends}) over an in-memory map of chunks that fails
     * every {@code failEvery}-th write (0: none), and an owner whose value is kept as bytes.
     */
    private static final class Caller {
        private final List<Limit> limits;
        private final Map<String, long[]> written = new HashMap<>();
        private final ChunkedSends sends;
        /** The owners' values by key. */
        private final Map<String, byte[]> stored = new HashMap<>();
        /** The caller's virtual {@link System#nanoTime()}. */
        private long nanos;
        private int largestValue;
        private int reads;
        private int writes;
        /** The operations the owner ran, first sends and resends. */
        private int calls;

        Caller(List<Limit> limits, int failEvery) {
            this.limits = limits;
            this.sends = new ChunkedSends(new GridStore.ChunkCalls() {
                @Override
                public CompletableFuture<long @Nullable []> read(String key, String limit, long birth, long index) {
                    reads++;
                    return CompletableFuture.completedFuture(written.get(name(key, limit, birth, index)));
                }

                @Override
                public CompletableFuture<?> write(String key, String limit, long birth, long index, long[] entries,
                                                  long ttlMicros) {
                    assertThat(ttlMicros).isEqualTo(LOG.periodMicros());
                    if (failEvery > 0 && ++writes % failEvery == 0) {
                        return CompletableFuture.failedFuture(new IllegalStateException("lost"));
                    }
                    long[] before = written.put(name(key, limit, birth, index), entries);
                    assertThat(before == null || Arrays.equals(before, entries))
                            .as("a chunk written again holds the same entries").isTrue();
                    return CompletableFuture.completedFuture(null);
                }
            }, () -> nanos);
        }

        List<Decision> decide(List<Long> costs, long now) {
            return decide("k", costs, now);
        }

        List<Decision> decide(String key, List<Long> costs, long now) {
            List<GridOperation> decisions = new ArrayList<>();
            for (long cost : costs) {
                decisions.add(GridOperation.decide(limits, cost, now));
            }
            GridOperation sent = decisions.size() == 1 ? decisions.get(0) : GridOperation.batch(decisions);
            Function<GridOperation, CompletableFuture<long[]>> onOwner = operation -> {
                calls++;
                GridRequest.Outcome outcome = GridOperation.decisionOnWire(operation.request()).run(stored.get(key), () -> 0);
                if (outcome.write()) {
                    byte[] state = outcome.state();
                    if (state == null) {
                        stored.remove(key);
                    } else {
                        stored.put(key, state);
                    }
                    largestValue = Math.max(largestValue, state == null ? 0 : state.length);
                }
                return CompletableFuture.completedFuture(outcome.reply());
            };
            int[] firstSends = new int[1];
            long[] replies = sends.send(key, sent, operation -> {
                firstSends[0]++;
                return onOwner.apply(operation);
            }, onOwner).join();
            // What goes again after a chunk was read goes by the resend, never the first send.
            assertThat(firstSends[0]).isEqualTo(1);
            List<Decision> answers = new ArrayList<>();
            for (int i = 0; i < costs.size(); i++) {
                answers.add(GridReply.decode(Arrays.copyOfRange(replies, i * GridReply.LENGTH,
                        (i + 1) * GridReply.LENGTH), limits));
            }
            return answers;
        }

        private static String name(String key, String limit, long birth, long index) {
            return key + "/" + limit + "/" + birth + "/" + index;
        }
    }
}
