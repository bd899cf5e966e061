package io.sluice.algorithms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
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
     * A head written at version 4, which earlier members refuse, and which a decision without
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
        assertThat(bytes[0]).as("the format").isEqualTo(KeyState.FORMAT_VERSION_PACKED_HEADS);
        KeyState head = KeyState.decode(bytes);
        long later = now + 1_000;
        assertThatThrownBy(() -> head.tryAcquire(limits, later, 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("chunks");
    }

    /**
     * A value of format 3 as members wrote it before format 4 (its head's gap two longs per
     * chunk): the key of {@link #steadyRun}'s log of 1,000 permits per 10 s after 1,600
     * admissions (a gap of about 13 chunks), made by {@code KeyState.encode} of 2026-12-04 (main
     * {@code 070ed65}). Still read: decided on with the chunks its log wrote, through waits that
     * expire many chunks at once, larger costs and denials, it gives the whole log's decisions,
     * and its next admission writes format 4.
     */
    @Example
    void aHeadOfFormat3IsReadAndDecidedAsTheWholeLog() throws IOException {
        Limit log = Limit.of(Algorithms.SLIDING_LOG, 1_000, Duration.ofSeconds(10)).named("log");
        List<Limit> limits = List.of(log);
        Map<String, long[]> written = new HashMap<>();
        SteadyLog run = steadyRun(limits, written, 1_600, 10_000);
        byte[] format3;
        try (InputStream in = KeyStateChunksProperties.class.getResourceAsStream("format3-head.b64")) {
            format3 = Base64.getDecoder().decode(new String(Objects.requireNonNull(in, "format3-head.b64").readAllBytes(),
                    StandardCharsets.US_ASCII).trim());
        }
        assertThat(format3[0]).as("the fixture's format").isEqualTo(KeyState.FORMAT_VERSION_HEADS);
        assertThat(KeyState.holdsHeads(format3)).isTrue();
        assertThat(run.chunked[0]).as("this version's format").isEqualTo(KeyState.FORMAT_VERSION_PACKED_HEADS);
        byte[] chunked = format3;
        byte[] whole = run.whole;
        Random random = new Random(7);
        long now = run.now;
        int denials = 0;
        int reads = 0;
        for (int i = 0; i < 600; i++) {
            now += random.nextInt(100) == 0 ? 1_000_000 + random.nextInt(2_000_000)
                    : random.nextInt(8) == 0 ? 0 : random.nextInt(20_000);
            long cost = random.nextInt(20) == 0 ? 1 + random.nextInt(50) : 1;
            KeyState reference = KeyState.decode(whole);
            Decision expected = reference.tryAcquire(limits, now, cost);
            if (expected.allowed()) {
                whole = reference.encode();
            } else {
                denials++;
            }
            Chunks chunks = new Chunks(written);
            KeyState state;
            Decision actual;
            do {
                state = KeyState.decode(chunked);
                chunks.needed = null;
                actual = state.tryAcquire(limits, now, cost, chunks);
                if (actual == null) {
                    assertThat(chunks.supplied.add(Objects.requireNonNull(chunks.needed, "needed"))).isTrue();
                    reads++;
                }
            } while (actual == null);
            assertThat(actual).as("request %d after the fixture", i).isEqualTo(expected);
            if (actual.allowed()) {
                chunked = state.encode();
                assertThat(chunked[0]).as("the format written").isEqualTo(KeyState.FORMAT_VERSION_PACKED_HEADS);
            }
            chunked = writeAndAcknowledge(chunked, chunks.flushes, written);
        }
        assertThat(denials).as("denials among the requests").isPositive();
        assertThat(reads).as("chunks read").isGreaterThan(2);
    }

    /**
     * A head's value grows by a few bytes per chunk of its gap, not 16: on a log at its limit's
     * rate, 10,000 entries against 1,000 (about 141 chunks more) add 2,249 bytes at format 3.
     */
    @Example
    void aHeadsValueGrowsByAFewBytesPerChunk() {
        long[] meanBytes = new long[2];
        int[] permits = {1_000, 10_000};
        for (int p = 0; p < permits.length; p++) {
            List<Limit> limits = List.of(Limit.of(Algorithms.SLIDING_LOG, permits[p],
                    Duration.ofNanos(10_000L * permits[p])).named("log"));
            SteadyLog run = steadyRun(limits, new HashMap<>(), 2 * permits[p], 10);
            long sum = 0;
            byte[] chunked = run.chunked;
            Map<String, long[]> written = new HashMap<>(run.written);
            long now = run.now;
            for (int i = 0; i < 20 * C; i++) {
                now += 10;
                KeyState state = KeyState.decode(chunked);
                Chunks chunks = new Chunks(written);
                Decision decision;
                while ((decision = state.tryAcquire(limits, now, 1, chunks)) == null) {
                    chunks.supplied.add(Objects.requireNonNull(chunks.needed, "needed"));
                    state = KeyState.decode(chunked);
                }
                assertThat(decision.allowed()).isTrue();
                chunked = writeAndAcknowledge(state.encode(), chunks.flushes, written);
                sum += chunked.length;
            }
            meanBytes[p] = sum / (20 * C);
        }
        assertThat(meanBytes[1] - meanBytes[0]).as("bytes more at 10,000 entries than at 1,000 (%d)", meanBytes[0])
                .isBetween(0L, 6L * (10_000 - 1_000) / C);
    }

    /** A key's values after a run of admissions one every {@code stepMicros}: the whole log's, the chunked one's, the chunks written, the time. */
    private record SteadyLog(byte[] whole, byte[] chunked, Map<String, long[]> written, long now) {
    }

    /**
     * {@code admissions} admissions of cost 1, one every {@code stepMicros} from
     * {@link Scenarios#EPOCH_2025}, decided as the whole log and with chunks, each flush written
     * and acknowledged at once into {@code written}.
     */
    private static SteadyLog steadyRun(List<Limit> limits, Map<String, long[]> written, int admissions,
                                       long stepMicros) {
        byte[] whole = KeyState.empty().encode();
        byte[] chunked = whole;
        long now = Scenarios.EPOCH_2025;
        for (int i = 0; i < admissions; i++) {
            now = Scenarios.EPOCH_2025 + stepMicros * i;
            KeyState reference = KeyState.decode(whole);
            assertThat(reference.tryAcquire(limits, now, 1).allowed()).as("admission %d", i).isTrue();
            whole = reference.encode();
            KeyState state = KeyState.decode(chunked);
            Chunks chunks = new Chunks(written);
            Decision decision;
            while ((decision = state.tryAcquire(limits, now, 1, chunks)) == null) {
                chunks.supplied.add(Objects.requireNonNull(chunks.needed, "needed"));
                state = KeyState.decode(chunked);
            }
            assertThat(decision.allowed()).isTrue();
            chunked = writeAndAcknowledge(state.encode(), chunks.flushes, written);
        }
        return new SteadyLog(whole, chunked, written, now);
    }

    /** {@code chunked} after each of {@code flushes} was written into {@code written} and acknowledged. */
    private static byte[] writeAndAcknowledge(byte[] chunked, List<long[]> flushes, Map<String, long[]> written) {
        byte[] value = chunked;
        for (long[] flush : flushes) {
            long[] entries = Arrays.copyOfRange(flush, 2, flush.length);
            written.put(Chunks.name(flush[0], flush[1]), entries);
            KeyState acking = KeyState.decode(value);
            if (acking.acked("log", flush[0], flush[1], entries[0])) {
                value = acking.encode();
            }
        }
        return value;
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
