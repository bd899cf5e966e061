package io.sluice.algorithms;

import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A long sliding log kept as a bounded head and immutable chunks, for a store that writes a
 * key's value whole (a grid's: Hazelcast's {@code BINARY} maps serialize it on every write,
 * Ignite writes it into page memory), so that an admission writes O(C) entries, not the log.
 * The head is {@code [TAG, birth, next, pending, pendingTime, gapFirst, gapChunks, loaded,
 * base, gapEnd, firstChunkTime, firstChunkPrior, lastChunkTime, lastChunkPrior, gapBytes,
 * packed differences, loaded entries, open entries]}, entries {@code (time, total)} with running
 * totals as in {@link SlidingLog}:
 *
 * <ul>
 *   <li>the <em>loaded</em> entries: the oldest, the live part of at most one chunk read back;
 *   <li>the <em>gap</em>: chunks {@code gapFirst} to {@code gapFirst + gapChunks - 1} written
 *       to keys of their own, each described by the time of its first entry and the total
 *       before it ({@code prior}): the first and the last chunk's in the header, every other
 *       chunk's as the unsigned variable-length integers of its time's difference from the
 *       chunk before's and of its prior's difference less C (a chunk holds C entries of a cost
 *       of at least 1), {@code gapBytes} bytes packed 8 to a long, big-endian; usually 3 or 4
 *       bytes a chunk, not 16. {@code gapEnd} is the total of the gap's last entry;
 *   <li>the <em>open</em> entries: the newest, never empty while a gap is.
 * </ul>
 *
 * <p>A head of the earlier layout ({@link #TAG_LONG_GAP}, {@code (time, prior)} as two longs per
 * gap chunk after a header of 10 longs, in {@code KeyState} format 3) is read as the same head in
 * this layout.
 *
 * <p>Running totals let entries be cut out of the log without changing anything else: the
 * live cost is still the newest total minus the total before the first live entry. A decision
 * that must read a chunk's entries (the first live entry lies in a chunk, or a denial's retry
 * time does) is {@linkplain Outcome#needsChunk() undecided}: the caller reads the chunk and
 * runs it again with it ({@code chunks}). That is exact; the head never guesses.
 *
 * <p>Flush: once the open part holds {@code 2 C} entries, an admission names its first
 * {@code C} entries chunk {@code next} ({@code pending}, {@code next} then grows) and its
 * outcome asks the caller to {@linkplain Outcome#flush() write} them; every admission asks
 * again until the caller {@linkplain #acked acknowledges} the write. Only then do they leave
 * the head, so a lost write or acknowledgement loses nothing. A chunk's index is issued once,
 * for the one content it names: the open part's first {@code C} entries do not change while
 * the flush is pending (an admission appends, or adds to the newest entry, at index
 * {@code 2 C - 1} or later), and when the oldest of them expire the flush is dropped, the
 * next one gets a new index. So every writer of a chunk writes the same bytes, and
 * {@code birth} (the time the head was made) keeps a later life of the key from reusing a
 * key a stale writer may still write.
 */
final class ChunkedLog {

    /** The tag of a head. */
    static final long TAG = SlidingLog.ID * 256 + 6;

    /**
     * The tag of a head of the earlier layout, its gap two longs per chunk, which members wrote
     * before the gap was packed: still read ({@link #packed}).
     */
    static final long TAG_LONG_GAP = SlidingLog.ID * 256 + 5;

    /**
     * The entries of a chunk in a grid store: a head then holds at most about 3 C entries and
     * 3 or 4 bytes per chunk of its gap (about 2.5 KB at 10,000 permits, measured over a log at
     * its limit's rate, where the whole log is 160 KB; 4.6 KB with 16 bytes per chunk).
     */
    static final int CHUNK_ENTRIES = 64;

    private static final int BIRTH = 1;
    private static final int NEXT = 2;
    private static final int PENDING = 3;
    private static final int PENDING_TIME = 4;
    private static final int GAP_FIRST = 5;
    private static final int GAP_CHUNKS = 6;
    private static final int LOADED = 7;
    private static final int BASE = 8;
    private static final int GAP_END = 9;
    private static final int FIRST_CHUNK_TIME = 10;
    private static final int FIRST_CHUNK_PRIOR = 11;
    private static final int LAST_CHUNK_TIME = 12;
    private static final int LAST_CHUNK_PRIOR = 13;
    private static final int GAP_BYTES = 14;
    private static final int HEADER = 15;
    /** The header of a head of {@link #TAG_LONG_GAP}: up to {@link #GAP_END}. */
    private static final int LONG_GAP_HEADER = 10;
    private static final long NONE = -1;
    private static final long[] NO_ENTRIES = {};

    /** What a caller is asked to write: a chunk's entries {@code (time, total - prior)}, relative to the total before it. */
    record Flush(long birth, long index, long[] entries) {
    }

    /**
     * A decision on a head: either {@linkplain #needsChunk() undecided} until the caller
     * supplies chunk {@link #neededChunk()}, or decided, with the state to store ({@code state},
     * the input itself when nothing changed) and perhaps a chunk to write.
     */
    record Outcome(long neededChunk, @Nullable Transition transition, long @Nullable [] state,
                   @Nullable Flush flush) {

        boolean needsChunk() {
            return neededChunk != NONE;
        }
    }

    private final int chunkEntries;

    /** A log of chunks of {@code chunkEntries} entries; a log of at most {@code 2 chunkEntries} entries stays whole. */
    ChunkedLog(int chunkEntries) {
        if (chunkEntries < 1) {
            throw new IllegalArgumentException("a chunk holds at least one entry: " + chunkEntries);
        }
        this.chunkEntries = chunkEntries;
    }

    /**
     * Whether a log that is not a head, written as {@code longs} longs (format 1 or 2), is still
     * one after any one admission, which adds at most one entry: it holds at most {@code 2 C - 2}
     * entries, so {@link #decide} would decide it as the plain log, and a store may do so itself.
     */
    boolean staysWhole(int longs) {
        return longs <= 2 + 2 * (2 * chunkEntries - 2);
    }

    /** Whether {@code state} is a head, of this layout or the earlier one. */
    static boolean isHead(long @Nullable [] state) {
        return state != null && state.length > 0 && isHeadTag(state[0])
                && state.length >= (state[0] == TAG ? HEADER : LONG_GAP_HEADER);
    }

    /** Whether {@code tag}, a state's first long, is a head's, of this layout or the earlier one. */
    static boolean isHeadTag(long tag) {
        return tag == TAG || tag == TAG_LONG_GAP;
    }

    /**
     * The time {@code state}'s head was made, which names its chunks with their index; 0 when
     * it is not a head (a plain log has no chunks).
     */
    static long birth(long @Nullable [] state) {
        return state != null && isHead(state) ? state[BIRTH] : 0;
    }

    /**
     * Decides a request of {@code cost} on {@code state} (none, a {@link SlidingLog} of format 2,
     * or a head) at {@code nowMicros}; {@code chunks} gives the entries of the chunks the caller
     * read ({@code null} for one it did not).
     */
    Outcome decide(long @Nullable [] state, long nowMicros, Limit limit, long cost,
                   LongFunction<long @Nullable []> chunks) {
        if (state != null && isHead(state)) {
            return new Decider(packed(state), nowMicros, limit, cost, chunks).decide();
        }
        Transition plain = Algorithms.SLIDING_LOG.transition(state, nowMicros, limit, cost);
        long[] next = plain.state();
        if (!plain.allowed() || next == null || (next.length - 2) / 2 < 2 * chunkEntries) {
            return new Outcome(NONE, plain, plain.allowed() ? next : state, null);
        }
        long[] head = fromLog(next, nowMicros);
        return new Outcome(NONE, Transition.allowed(plain.remaining(), plain.resetAfterMicros(), head), head,
                flushOf(head));
    }

    /**
     * The head after the caller wrote {@code flush}: its entries moved into the gap when it is
     * the pending flush of this head, else {@code head} itself (a stale or repeated
     * acknowledgement, or one of an earlier life of the key, changes nothing).
     */
    long[] acked(long[] head, Flush flush) {
        return acked(head, flush.birth(), flush.index(), flush.entries()[0]);
    }

    /** As {@link #acked(long[], Flush)}, for chunk {@code index} of the head made at {@code birth}, its first entry's time {@code firstTime}. */
    long[] acked(long[] stored, long birth, long index, long firstTime) {
        if (!isHead(stored) || stored[BIRTH] != birth || stored[PENDING] != index
                || stored[PENDING_TIME] != firstTime) {
            return stored;
        }
        long[] head = packed(stored);
        int gap = (int) head[GAP_CHUNKS];
        int openStart = openStart(head);
        if (head[openStart] != firstTime || (head.length - openStart) / 2 < chunkEntries + 1
                || gap > 0 && head[GAP_FIRST] + gap != index) {
            return stored;
        }
        long openPrior = openPrior(head);
        int gapBytes = (int) head[GAP_BYTES];
        int nextGapBytes = gap == 0 ? 0 : gapBytes + Varints.unsignedLength(firstTime - head[LAST_CHUNK_TIME])
                + Varints.unsignedLength(openPrior - head[LAST_CHUNK_PRIOR] - chunkEntries);
        int loadedStart = loadedStart(head);
        int loadedAt = HEADER + longsOf(nextGapBytes);
        int loaded = 2 * (int) head[LOADED];
        int keptOpen = openStart + 2 * chunkEntries;
        long[] next = new long[loadedAt + loaded + head.length - keptOpen];
        System.arraycopy(head, 0, next, 0, loadedStart);
        if (gap > 0) {
            int at = putUnsigned(next, gapBytes, firstTime - head[LAST_CHUNK_TIME]);
            putUnsigned(next, at, openPrior - head[LAST_CHUNK_PRIOR] - chunkEntries);
        } else {
            next[FIRST_CHUNK_TIME] = firstTime;
            next[FIRST_CHUNK_PRIOR] = openPrior;
        }
        System.arraycopy(head, loadedStart, next, loadedAt, loaded);
        System.arraycopy(head, keptOpen, next, loadedAt + loaded, head.length - keptOpen);
        next[GAP_FIRST] = gap == 0 ? index : head[GAP_FIRST];
        next[GAP_CHUNKS] = gap + 1;
        next[GAP_END] = head[keptOpen - 1];
        next[LAST_CHUNK_TIME] = firstTime;
        next[LAST_CHUNK_PRIOR] = openPrior;
        next[GAP_BYTES] = nextGapBytes;
        next[PENDING] = NONE;
        next[PENDING_TIME] = 0;
        return next;
    }

    /** The flush {@code head} asks for, if any: its pending chunk's entries, relative to the total before them. */
    private @Nullable Flush flushOf(long[] head) {
        if (head[PENDING] == NONE) {
            return null;
        }
        int openStart = openStart(head);
        long prior = openPrior(head);
        long[] entries = new long[2 * chunkEntries];
        for (int i = 0; i < entries.length; i += 2) {
            entries[i] = head[openStart + i];
            entries[i + 1] = head[openStart + i + 1] - prior;
        }
        return new Flush(head[BIRTH], head[PENDING], entries);
    }

    /** A head holding the log of format 2 {@code log} as its open part, with no gap, made at {@code nowMicros}. */
    private long[] fromLog(long[] log, long nowMicros) {
        long[] head = new long[HEADER + log.length - 2];
        head[0] = TAG;
        head[BIRTH] = nowMicros;
        head[PENDING] = NONE;
        head[GAP_FIRST] = NONE;
        head[BASE] = log[1];
        head[GAP_END] = log[1];
        System.arraycopy(log, 2, head, HEADER, log.length - 2);
        return withFlush(head);
    }

    /** {@code head} with a pending flush when its open part is long enough and none is pending. */
    private long[] withFlush(long[] head) {
        int openEntries = (head.length - openStart(head)) / 2;
        if (head[PENDING] == NONE && openEntries >= 2 * chunkEntries) {
            head[PENDING] = head[NEXT];
            head[NEXT]++;
            head[PENDING_TIME] = head[openStart(head)];
        }
        return head;
    }

    private static int openStart(long[] head) {
        return loadedStart(head) + 2 * (int) head[LOADED];
    }

    /** Where the loaded entries start: after the header and the gap's packed differences. */
    private static int loadedStart(long[] head) {
        return HEADER + longsOf((int) head[GAP_BYTES]);
    }

    /** The longs that hold {@code bytes} packed bytes. */
    private static int longsOf(int bytes) {
        return (bytes + Long.BYTES - 1) / Long.BYTES;
    }

    /**
     * {@code state}, a head, in this layout: itself, or a head of {@link #TAG_LONG_GAP} (two
     * longs per gap chunk) with the same entries and chunks, its gap packed.
     */
    private long[] packed(long[] state) {
        if (state[0] == TAG) {
            return state;
        }
        int gap = (int) state[GAP_CHUNKS];
        int bytes = 0;
        for (int j = 1; j < gap; j++) {
            bytes += Varints.unsignedLength(state[LONG_GAP_HEADER + 2 * j] - state[LONG_GAP_HEADER + 2 * j - 2])
                    + Varints.unsignedLength(state[LONG_GAP_HEADER + 2 * j + 1] - state[LONG_GAP_HEADER + 2 * j - 1]
                            - chunkEntries);
        }
        int entriesFrom = LONG_GAP_HEADER + 2 * gap;
        int entriesAt = HEADER + longsOf(bytes);
        long[] head = new long[entriesAt + state.length - entriesFrom];
        System.arraycopy(state, 0, head, 0, LONG_GAP_HEADER);
        head[0] = TAG;
        int at = 0;
        for (int j = 1; j < gap; j++) {
            at = putUnsigned(head, at, state[LONG_GAP_HEADER + 2 * j] - state[LONG_GAP_HEADER + 2 * j - 2]);
            at = putUnsigned(head, at, state[LONG_GAP_HEADER + 2 * j + 1] - state[LONG_GAP_HEADER + 2 * j - 1]
                    - chunkEntries);
        }
        if (gap > 0) {
            head[FIRST_CHUNK_TIME] = state[LONG_GAP_HEADER];
            head[FIRST_CHUNK_PRIOR] = state[LONG_GAP_HEADER + 1];
            head[LAST_CHUNK_TIME] = state[entriesFrom - 2];
            head[LAST_CHUNK_PRIOR] = state[entriesFrom - 1];
        }
        head[GAP_BYTES] = bytes;
        System.arraycopy(state, entriesFrom, head, entriesAt, state.length - entriesFrom);
        return head;
    }

    /** Writes {@code value} as an unsigned variable-length integer into the gap of {@code head} from byte {@code at}, zero there; returns the byte after it. */
    private static int putUnsigned(long[] head, int at, long value) {
        long rest = value;
        int position = at;
        while ((rest & ~0x7FL) != 0) {
            putByte(head, position++, (int) (rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        putByte(head, position++, (int) rest);
        return position;
    }

    private static void putByte(long[] head, int at, int value) {
        head[HEADER + at / Long.BYTES] |= (long) value << (Long.SIZE - Byte.SIZE * (at % Long.BYTES + 1));
    }

    private static int byteAt(long[] head, int at) {
        return (int) (head[HEADER + at / Long.BYTES] >>> (Long.SIZE - Byte.SIZE * (at % Long.BYTES + 1))) & 0xFF;
    }

    /** The total before the open part's first entry. */
    private static long openPrior(long[] head) {
        if (head[GAP_CHUNKS] > 0) {
            return head[GAP_END];
        }
        int loaded = (int) head[LOADED];
        return loaded == 0 ? head[BASE] : head[loadedStart(head) + 2 * loaded - 1];
    }

    /** One decision on a head: where its first live entry is, and what it admits or denies. */
    private final class Decider {

        private final long[] head;
        private final long now;
        private final Limit limit;
        private final long cost;
        private final LongFunction<long @Nullable []> chunks;
        private final int gap;
        private final int loadedStart;
        private final int openStart;

        /** Where the first live entry is: in the loaded part, a chunk, at a chunk's start, or in the open part. */
        private Place first = Place.OPEN;
        /** The index of the first live entry's time in the loaded part, its chunk or the open part. */
        private int firstIndex;
        /** The gap chunk (0 the gap's first) the first live entry is in or starts. */
        private int firstChunk;
        /** The total before {@link #firstChunk}, when the first live entry is in it. */
        private long firstChunkPrior;
        private long[] firstChunkEntries = NO_ENTRIES;
        /** The total before the first live entry. */
        private long prior;
        private long neededChunk = NONE;

        Decider(long[] head, long now, Limit limit, long cost, LongFunction<long @Nullable []> chunks) {
            this.head = head;
            this.now = now;
            this.limit = limit;
            this.cost = cost;
            this.chunks = chunks;
            this.gap = (int) head[GAP_CHUNKS];
            this.loadedStart = loadedStart(head);
            this.openStart = openStart(head);
        }

        Outcome decide() {
            Checks.cost(cost);
            long permits = limit.permits();
            long period = limit.periodMicros();
            if (!findFirst(now - period)) {
                return new Outcome(neededChunk, null, null, null);
            }
            long total = head[head.length - 1];
            long used = total - prior;
            long lastTime = head[head.length - 2];
            boolean exceeds = cost > permits;
            boolean allowed = !exceeds && used + cost <= permits;
            if (!allowed) {
                long retryAfter = 0;
                if (!exceeds) {
                    long time = timeOfFirstTotalAtLeast(total + cost - permits);
                    if (time == NONE) {
                        return new Outcome(neededChunk, null, null, null);
                    }
                    retryAfter = time + period - now;
                }
                // Every entry expired: lastTime + period is not after now, and the plain log says 0. A
                // denial changes nothing, not even what expired (the clock may go back, as the
                // plain log's may), so a chunk it read is read again by the next decision.
                return new Outcome(NONE, Transition.of(false, exceeds, Math.max(0, permits - used),
                        Math.max(0, lastTime + period - now), retryAfter, head), head, null);
            }
            boolean merge = lastTime >= now;
            long entryTime = merge ? lastTime : now;
            long[] next = withFlush(appended(trimmed(merge ? 0 : 2), entryTime, total + cost, merge));
            return new Outcome(NONE, Transition.allowed(permits - used - cost, entryTime + period - now, next), next,
                    flushOf(next));
        }

        /** Finds the first live entry and the total before it; false when that needs a chunk not supplied. */
        private boolean findFirst(long expiredUpTo) {
            int loaded = (int) head[LOADED];
            if (loaded > 0 && head[openStart - 2] > expiredUpTo) {
                first = Place.LOADED;
                firstIndex = firstLive(head, loadedStart, openStart, expiredUpTo) - loadedStart;
                prior = firstIndex == 0 ? head[BASE] : head[loadedStart + firstIndex - 1];
                return true;
            }
            if (gap > 0) {
                Gap chunk = new Gap(head);
                if (chunk.time > expiredUpTo) {
                    first = Place.CHUNK_START;
                    firstChunk = 0;
                    prior = chunk.prior;
                    return true;
                }
                while (chunk.nextIfStartsBy(expiredUpTo)) {
                    // On to the last chunk whose first entry expired.
                }
                int j = chunk.index;
                if (j < gap - 1 || head[openStart] > expiredUpTo) {
                    long[] entries = chunk(j);
                    if (entries == null) {
                        return false;
                    }
                    int at = firstLive(entries, 0, entries.length, expiredUpTo);
                    if (at < entries.length) {
                        first = Place.CHUNK;
                        firstChunk = j;
                        firstIndex = at;
                        firstChunkEntries = entries;
                        firstChunkPrior = chunk.prior;
                        prior = chunk.prior + (at == 0 ? 0 : entries[at - 1]);
                        return true;
                    }
                    if (j < gap - 1) {
                        chunk.next();
                        first = Place.CHUNK_START;
                        firstChunk = j + 1;
                        prior = chunk.prior;
                        return true;
                    }
                    first = Place.OPEN;
                    firstIndex = 0;
                    prior = head[GAP_END];
                    return true;
                }
                // The whole gap expired: its chunks are not needed any more.
                first = Place.OPEN;
                firstIndex = firstLive(head, openStart, head.length, expiredUpTo) - openStart;
                prior = firstIndex == 0 ? head[GAP_END] : head[openStart + firstIndex - 1];
                return true;
            }
            first = Place.OPEN;
            firstIndex = firstLive(head, openStart, head.length, expiredUpTo) - openStart;
            prior = firstIndex == 0 ? openPrior(head) : head[openStart + firstIndex - 1];
            return true;
        }

        /** Gap chunk {@code j}'s entries as supplied, or {@code null}, noting that it is needed. */
        private long @Nullable [] chunk(int j) {
            long index = head[GAP_FIRST] + j;
            long[] entries = chunks.apply(index);
            if (entries == null) {
                neededChunk = index;
            } else if (entries.length != 2 * chunkEntries) {
                throw new IllegalArgumentException("chunk " + index + " has " + entries.length + " longs, not "
                        + 2 * chunkEntries);
            }
            return entries;
        }

        /**
         * The time of the first entry whose running total is at least {@code target} (above the
         * total before the first live entry, so it is live); {@link #NONE} when that needs a
         * chunk not supplied.
         */
        private long timeOfFirstTotalAtLeast(long target) {
            int loaded = (int) head[LOADED];
            if (loaded > 0 && head[openStart - 1] >= target) {
                return head[firstTotalAtLeast(head, loadedStart, openStart, target) - 1];
            }
            if (gap > 0 && head[GAP_END] >= target) {
                Gap chunk = new Gap(head);
                while (chunk.nextIfPriorBelow(target)) {
                    // On to the chunk holding the first total at least the target.
                }
                long[] entries = chunk(chunk.index);
                if (entries == null) {
                    return NONE;
                }
                return entries[firstTotalAtLeast(entries, 0, entries.length, target - chunk.prior) - 1];
            }
            return head[firstTotalAtLeast(head, openStart, head.length, target) - 1];
        }

        /**
         * The head without what expired before the first live entry: the loaded part from it,
         * or the chunk it is in spliced in front of the rest of the gap, or, when the gap went,
         * the open part from it; its pending flush dropped when the open part's first entry
         * changed (its oldest entries expired), since the chunk named would not hold them. The
         * array has {@code room} longs more at its end, zero, for the admission's entry: one copy
         * of the head per admission, not two.
         */
        private long[] trimmed(int room) {
            int loadedLongs;
            int keptFrom;
            switch (first) {
                case LOADED -> {
                    loadedLongs = openStart - loadedStart - firstIndex;
                    keptFrom = 0;
                }
                case CHUNK -> {
                    loadedLongs = firstChunkEntries.length - firstIndex;
                    keptFrom = firstChunk + 1;
                }
                case CHUNK_START -> {
                    loadedLongs = 0;
                    keptFrom = firstChunk;
                }
                default -> {
                    loadedLongs = 0;
                    keptFrom = gap;
                }
            }
            int keptGap = gap - keptFrom;
            Gap kept = new Gap(head);
            while (kept.index < keptFrom && kept.index + 1 < gap) {
                kept.next();
            }
            int gapBytes = keptGap == 0 ? 0 : (int) head[GAP_BYTES] - kept.position;
            int loadedAt = HEADER + longsOf(gapBytes);
            int openFrom = first == Place.OPEN ? openStart + firstIndex : openStart;
            int openLongs = head.length - openFrom;
            int longs = loadedAt + loadedLongs + openLongs;
            long[] next = new long[longs + room];
            System.arraycopy(head, 0, next, 0, HEADER);
            kept.copyRest(next, gapBytes);
            if (first == Place.LOADED) {
                System.arraycopy(head, loadedStart + firstIndex, next, loadedAt, loadedLongs);
            } else if (first == Place.CHUNK) {
                for (int i = 0; i < loadedLongs; i += 2) {
                    next[loadedAt + i] = firstChunkEntries[firstIndex + i];
                    next[loadedAt + i + 1] = firstChunkEntries[firstIndex + i + 1] + firstChunkPrior;
                }
            }
            System.arraycopy(head, openFrom, next, loadedAt + loadedLongs, openLongs);
            next[GAP_FIRST] = keptGap == 0 ? NONE : head[GAP_FIRST] + keptFrom;
            next[GAP_CHUNKS] = keptGap;
            next[FIRST_CHUNK_TIME] = keptGap == 0 ? 0 : kept.time;
            next[FIRST_CHUNK_PRIOR] = keptGap == 0 ? 0 : kept.prior;
            if (keptGap == 0) {
                next[LAST_CHUNK_TIME] = 0;
                next[LAST_CHUNK_PRIOR] = 0;
            }
            next[GAP_BYTES] = gapBytes;
            next[LOADED] = loadedLongs / 2;
            next[BASE] = prior;
            int nextOpen = openStart(next);
            if (next[PENDING] != NONE && (nextOpen == longs || next[nextOpen] != next[PENDING_TIME])) {
                next[PENDING] = NONE;
                next[PENDING_TIME] = 0;
            }
            return next;
        }
    }

    /** Where a head's first live entry is. */
    private enum Place { LOADED, CHUNK, CHUNK_START, OPEN }

    /**
     * A walk over a head's gap from its first chunk: chunk {@link #index}'s first time and
     * prior, and the byte where the next chunk's differences start. Why a walk: a decision needs
     * the chunks from the oldest live entry on, which are mostly the gap's first.
     */
    private final class Gap {

        private final long[] head;
        private final int chunks;
        private int index;
        private long time;
        private long prior;
        private int position;

        Gap(long[] head) {
            this.head = head;
            this.chunks = (int) head[GAP_CHUNKS];
            this.time = head[FIRST_CHUNK_TIME];
            this.prior = head[FIRST_CHUNK_PRIOR];
        }

        /** Moves to the next chunk, which there is. */
        void next() {
            time += readUnsigned();
            prior += readUnsigned() + chunkEntries;
            index++;
        }

        /** Moves to the next chunk when there is one and its first entry's time is at most {@code upTo}. */
        boolean nextIfStartsBy(long upTo) {
            if (index + 1 >= chunks) {
                return false;
            }
            int at = position;
            long nextTime = time + readUnsigned();
            if (nextTime > upTo) {
                position = at;
                return false;
            }
            time = nextTime;
            prior += readUnsigned() + chunkEntries;
            index++;
            return true;
        }

        /** Moves to the next chunk when there is one and the total before it is below {@code target}. */
        boolean nextIfPriorBelow(long target) {
            if (index + 1 >= chunks) {
                return false;
            }
            int at = position;
            long nextTime = time + readUnsigned();
            long nextPrior = prior + readUnsigned() + chunkEntries;
            if (nextPrior >= target) {
                position = at;
                return false;
            }
            time = nextTime;
            prior = nextPrior;
            index++;
            return true;
        }

        /** Writes the differences after this chunk, {@code bytes} of them, into the gap of {@code next}, zero there. */
        void copyRest(long[] next, int bytes) {
            if (position % Long.BYTES == 0) {
                System.arraycopy(head, HEADER + position / Long.BYTES, next, HEADER, longsOf(bytes));
                return;
            }
            for (int i = 0; i < bytes; i++) {
                putByte(next, i, byteAt(head, position + i));
            }
        }

        private long readUnsigned() {
            long value = 0;
            for (int shift = 0; ; shift += 7) {
                int b = byteAt(head, position++);
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
        }
    }

    /**
     * {@code head} with an admission's entry, in place: added to its newest when {@code merge},
     * else written into its last two longs, left free for it; totals rebased when its base grew
     * large.
     */
    private static long[] appended(long[] head, long entryTime, long newTotal, boolean merge) {
        if (!merge) {
            head[head.length - 2] = entryTime;
        }
        head[head.length - 1] = newTotal;
        long base = head[BASE];
        if (base > SlidingLog.REBASE_ABOVE) {
            // The gap's first and last priors (the differences between priors stay) and every
            // entry's total: at odd offsets from the loaded entries' start. A chunk holds its
            // totals relative to its prior, so the chunks written stay as they are.
            head[BASE] -= base;
            head[GAP_END] -= base;
            if (head[GAP_CHUNKS] > 0) {
                head[FIRST_CHUNK_PRIOR] -= base;
                head[LAST_CHUNK_PRIOR] -= base;
            }
            for (int i = loadedStart(head) + 1; i < head.length; i += 2) {
                head[i] -= base;
            }
        }
        return head;
    }

    /** The index of the first entry from {@code start} whose time is above {@code expiredUpTo}; {@code end} when none. */
    private static int firstLive(long[] entries, int start, int end, long expiredUpTo) {
        int low = 0;
        int high = (end - start) / 2;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (entries[start + 2 * middle] <= expiredUpTo) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return start + 2 * low;
    }

    /** The index of the total of the first entry from {@code start} whose total is at least {@code target}; one exists. */
    private static int firstTotalAtLeast(long[] entries, int start, int end, long target) {
        int low = 0;
        int high = (end - start) / 2 - 1;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (entries[start + 2 * middle + 1] < target) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return start + 2 * low + 1;
    }
}
