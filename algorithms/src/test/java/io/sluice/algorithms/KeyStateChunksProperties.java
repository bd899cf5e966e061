package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * {@link KeyState#tryAcquire(List, long, long, LogChunks)} against
 * {@link KeyState#tryAcquire(List, long, long)}, each encoded and decoded between requests as a
 * grid store's owner does: the same decisions for a sliding log long enough to be kept as a
 * head and chunks, alone or beside a bucket (a mission's shape), whether the caller writes and
 * acknowledges each flush at once, late, or loses it; and a head is never read as a fresh log.
 */
class KeyStateChunksProperties {

    private static final int C = ChunkedLog.CHUNK_ENTRIES;

    record Request(long waitMicros, long cost, int caller) {
    }

    record Run(List<Limit> limits, List<Request> requests) {
    }

    /**
     * A sliding log of 2 C to 6 C permits, requests about at its rate (now and then a long wait,
     * the clock going back or a larger cost); a token bucket beside it in half the runs.
     */
    @Provide
    Arbitrary<Run> runs() {
        Arbitrary<Limit> logs = Combinators.combine(Arbitraries.longs().between(2L * C, 6L * C),
                        Arbitraries.longs().between(10_000, 10_000_000))
                .as((permits, period) -> Limit.of(Algorithms.SLIDING_LOG, permits, Duration.ofNanos(period * 1_000))
                        .named("log"));
        return Combinators.combine(logs, Arbitraries.of(false, true)).flatAs((log, bucket) -> {
            List<Limit> limits = bucket
                    ? List.of(log, Limit.of(Algorithms.TOKEN_BUCKET, log.permits(), log.period()).named("bucket"))
                    : List.of(log);
            long interval = log.periodMicros() / log.permits();
            Arbitrary<Long> wait = Arbitraries.frequencyOf(
                    Tuple.of(20, Arbitraries.just(0L)),
                    Tuple.of(400, Arbitraries.longs().between(1, 2 * interval)),
                    Tuple.of(1, Arbitraries.longs().between(1, 2 * log.periodMicros())),
                    Tuple.of(1, Arbitraries.longs().between(-log.periodMicros(), -1)));
            Arbitrary<Long> cost = Arbitraries.frequencyOf(
                    Tuple.of(400, Arbitraries.just(1L)),
                    Tuple.of(1, Arbitraries.longs().between(1, log.permits() / 8)));
            Arbitrary<Integer> caller = Arbitraries.integers().between(0, 9);
            return Combinators.combine(wait, cost, caller).as(Request::new).list().ofMinSize(500).ofMaxSize(2_000)
                    .map(requests -> new Run(limits, requests));
        });
    }

    @Property(tries = 60, edgeCases = EdgeCasesMode.NONE)
    void decidesAsTheWholeLogAcrossEncodingsAndFlushes(@ForAll("runs") Run run) {
        byte[] whole = KeyState.empty().encode();
        byte[] chunked = whole;
        Map<String, long[]> written = new HashMap<>();
        List<long[]> unacknowledged = new ArrayList<>();
        long now = Scenarios.EPOCH_2025;
        int reads = 0;
        for (Request request : run.requests()) {
            now += request.waitMicros();
            KeyState reference = KeyState.decode(whole);
            Decision expected = reference.tryAcquire(run.limits(), now, request.cost());
            if (expected.allowed()) {
                whole = reference.encode();
            }
            Chunks chunks = new Chunks(written);
            Decision actual;
            KeyState state;
            do {
                state = KeyState.decode(chunked);
                chunks.needed = null;
                actual = state.tryAcquire(run.limits(), now, request.cost(), chunks);
                if (actual == null) {
                    assertThat(chunks.needed).as("the chunk needed").isNotNull();
                    assertThat(written).as("a chunk needed was written").containsKey(chunks.needed);
                    assertThat(chunks.supplied.add(chunks.needed)).as("a chunk is needed once").isTrue();
                    reads++;
                }
            } while (actual == null);
            assertThat(actual).isEqualTo(expected);
            if (actual.allowed()) {
                chunked = state.encode();
            }
            unacknowledged.addAll(chunks.flushes);
            // What the callers do with the flushes asked of them: 0-5 write and acknowledge the
            // newest, 6 the oldest, 7 lose it, else nothing yet.
            if (!unacknowledged.isEmpty() && request.caller() <= 7) {
                long[] flush = unacknowledged.remove(request.caller() == 6 ? 0 : unacknowledged.size() - 1);
                if (request.caller() != 7) {
                    long[] entries = Arrays.copyOfRange(flush, 2, flush.length);
                    long[] before = written.put(Chunks.name(flush[0], flush[1]), entries);
                    assertThat(before == null || Arrays.equals(before, entries))
                            .as("a chunk written again holds the same entries").isTrue();
                    KeyState acking = KeyState.decode(chunked);
                    if (acking.acked("log", flush[0], flush[1], entries[0])) {
                        chunked = acking.encode();
                    }
                }
            }
        }
        Statistics.label("chunks read").collect(reads == 0 ? "none" : reads < 10 ? "1-9" : "10+");
        Statistics.label("chunks written").collect(written.isEmpty() ? "none" : written.size() < 10 ? "1-9" : "10+");
    }

    /**
     * A head written at version 3, which earlier members refuse, and which a decision without
     * chunks (a path that does not ask for them) refuses too, rather than reading a fresh log.
     */
    @Example
    void aHeadIsNeverReadAsAFreshLog() {
        List<Limit> limits = List.of(Limit.of(Algorithms.SLIDING_LOG, 4L * C, Duration.ofSeconds(1)).named("log"));
        byte[] bytes = KeyState.empty().encode();
        long now = Scenarios.EPOCH_2025;
        for (int i = 0; i < 2 * C; i++) {
            now += 1_000;
            KeyState state = KeyState.decode(bytes);
            assertThat(state.tryAcquire(limits, now, 1, new Chunks(Map.of()))).isNotNull();
            bytes = state.encode();
        }
        assertThat(bytes[0]).as("the format").isEqualTo(KeyState.FORMAT_VERSION_HEADS);
        KeyState head = KeyState.decode(bytes);
        long later = now + 1_000;
        assertThatThrownBy(() -> head.tryAcquire(limits, later, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("chunks");
    }

    /** A caller's chunks: those it read for this request, what it was asked to read, and to write. */
    private static final class Chunks implements LogChunks {
        private final Map<String, long[]> written;
        private final Set<String> supplied = new HashSet<>();
        private final List<long[]> flushes = new ArrayList<>();
        private @Nullable String needed;

        Chunks(Map<String, long[]> written) {
            this.written = written;
        }

        static String name(long birth, long index) {
            return birth + "/" + index;
        }

        @Override
        public long @Nullable [] chunk(String limitName, long birth, long index) {
            String name = name(birth, index);
            return supplied.contains(name) ? written.get(name) : null;
        }

        @Override
        public void need(String limitName, long birth, long index) {
            needed = name(birth, index);
        }

        @Override
        public void flush(String limitName, long birth, long index, long[] entries) {
            long[] flush = new long[entries.length + 2];
            flush[0] = birth;
            flush[1] = index;
            System.arraycopy(entries, 0, flush, 2, entries.length);
            flushes.add(flush);
        }
    }
}
