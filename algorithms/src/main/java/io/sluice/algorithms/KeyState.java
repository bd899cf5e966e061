package io.sluice.algorithms;

import io.sluice.algorithms.Probing.NewState;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The states of all the limits of one key, for stores that run the Java algorithms next
 * to their data (local, Hazelcast, Ignite): one entry per key, so a multi-limit check is
 * one atomic step. Mutable and not thread-safe: the store supplies atomicity.
 *
 * <p>Each limit's state is kept under the limit's name with its expiry, the instant after
 * which it is equivalent to the fresh state; expired states are dropped. The
 * {@linkplain #encode() encoding} is compact and versioned: a format byte, then per limit
 * its name (UTF-8, length-prefixed), its expiry and its state. A short state is written as
 * variable-length integers; a long one (a sliding log's) as fixed-width longs, which
 * {@link #decode} does not read: a sliding log decides on them in place, so a grid store's
 * denial reads a few of its entries rather than decoding the whole log.
 */
public final class KeyState {

    /** The first byte of every encoding; a rolling upgrade reads older versions. */
    static final byte FORMAT_VERSION = 2;

    /** Format 1: every state as variable-length integers. */
    static final byte FORMAT_VERSION_1 = 1;

    /**
     * Format 2 holding a sliding log kept as a head and chunks ({@link ChunkedLog}): a member of
     * an earlier version refuses it (a store failure, counted) instead of reading the head as
     * a fresh log, which would admit what its chunks hold.
     */
    static final byte FORMAT_VERSION_HEADS = 3;

    /**
     * Format 2 holding a sliding log kept as a head whose gap is packed ({@link ChunkedLog#TAG}:
     * 3 or 4 bytes per chunk instead of 16): a member of an earlier version refuses it, as one
     * before format 3 refuses that, instead of reading the head as a fresh log. Values of format
     * 3 (heads of {@link ChunkedLog#TAG_LONG_GAP}) are still read.
     */
    static final byte FORMAT_VERSION_PACKED_HEADS = 4;

    /** States of more longs than this are encoded as fixed-width longs (format 2). */
    static final int FIXED_WIDTH_ABOVE = 8;

    private static final long[] NOT_DECODED = {};

    /** What an array slot past the last state holds when no spare array is kept there ({@link #inputState}). */
    private static final long[] NO_SPARE = {};
    private static final Object[] NO_LIMITS = {};
    private static final ByteBuffer[] NO_ENCODED = {};
    private static final long[] NO_EXPIRIES = {};

    /** The sliding logs of grid stores that ask for chunks ({@link #tryAcquire(List, long, long, LogChunks)}). */
    private static final ChunkedLog CHUNKED_LOG = new ChunkedLog(ChunkedLog.CHUNK_ENTRIES);

    /**
     * The limits' names, states and expiries, in parallel; a key has few limits, so a scan finds
     * one. A state read from a fixed-width encoding stays there (its encoded longs, its state
     * then {@link #NOT_DECODED}) until an algorithm needs it as an array. The first limit is
     * held in fields of this object, the others in arrays (shared empty ones until a second
     * limit comes): a decision on a key out of the CPU's cache pays a miss per object it reads,
     * and a key of one limit read this object and four arrays besides its state's own array,
     * where now it reads this object and the state. Limit {@code i >= 1} is at {@code i - 1} in
     * the arrays (its name and state side by side in {@link #namesAndStates}); the accessors
     * ({@link #name}, {@link #state}, ...) hide the split. A key of three limits reads this
     * object, two arrays (the encodings' stays empty in the local store) and its states.
     */
    private @Nullable String firstName;
    private long[] firstState = NO_SPARE;
    private @Nullable ByteBuffer firstEncoded;
    private long firstExpiry;
    /** From the second limit on, each limit's name (a {@code String}) and state (a {@code long[]}), in pairs. */
    private Object[] namesAndStates = NO_LIMITS;
    /** Empty until a limit past the first keeps its encoded longs ({@link #setEncoded}). */
    private @Nullable ByteBuffer[] encoded = NO_ENCODED;
    private long[] expiries = NO_EXPIRIES;
    private int size;

    /** A key with room for {@code capacity} limits before its arrays grow. */
    private KeyState(int capacity) {
        if (capacity > 1) {
            growTo(capacity);
        }
    }

    /** A key with no state: every limit fresh. */
    public static KeyState empty() {
        return new KeyState(1);
    }

    /**
     * Whether {@code encoded}, what {@link #encode()} wrote, keeps a sliding log as a head whose
     * older entries are in chunks: such a state can only be decided with its chunks at hand
     * ({@link #tryAcquire(List, long, long, LogChunks)}), never held as a whole log.
     */
    public static boolean holdsHeads(byte[] encoded) {
        return encoded.length > 0 && (encoded[0] == FORMAT_VERSION_HEADS || encoded[0] == FORMAT_VERSION_PACKED_HEADS);
    }

    /**
     * Reads what {@link #encode()} wrote.
     *
     * @throws IllegalArgumentException when the bytes are not an encoding of a known version
     */
    public static KeyState decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        Reader reader = new Reader(bytes);
        int version = reader.readByte();
        if (version != FORMAT_VERSION && version != FORMAT_VERSION_1 && version != FORMAT_VERSION_HEADS
                && version != FORMAT_VERSION_PACKED_HEADS) {
            throw new IllegalArgumentException("unknown KeyState format version: " + version);
        }
        int count = reader.readLength();
        KeyState decoded = new KeyState(Math.max(1, count));
        for (int i = 0; i < count; i++) {
            String name = new String(reader.readBytes(reader.readLength()), StandardCharsets.UTF_8);
            long expiresAt = reader.readLong();
            long header = version == FORMAT_VERSION_1 ? reader.readUnsigned() << 1 : reader.readUnsigned();
            int length = reader.checkedLength(header >>> 1);
            int at = decoded.indexOf(name);
            if ((header & 1) == 0) {
                long[] state = new long[length];
                for (int j = 0; j < state.length; j++) {
                    state[j] = reader.readLong();
                }
                decoded.put(at, name, state, expiresAt);
            } else {
                decoded.put(at, name, NOT_DECODED, expiresAt);
                decoded.setEncoded(decoded.indexOf(name), reader.readFixed(length));
            }
        }
        if (!reader.atEnd()) {
            throw new IllegalArgumentException("KeyState encoding has " + reader.left()
                    + " trailing bytes");
        }
        return decoded;
    }

    /**
     * This state in the compact, versioned binary format that {@link #decode} reads: per
     * state a header {@code length << 1 | fixed}, then its longs as zig-zag variable-length
     * integers, or, for a state of more than {@link #FIXED_WIDTH_ABOVE} longs, as 8 bytes
     * each (big-endian), which a sliding log reads in place. A sliding log changed in place is
     * written as its log of format 2. The bytes are counted first and written into the array
     * returned, so that a long log is copied once.
     */
    public byte[] encode() {
        byte[][] nameBytes = new byte[size][];
        int length = 1 + Varints.unsignedLength(size);
        for (int i = 0; i < size; i++) {
            nameBytes[i] = name(i).getBytes(StandardCharsets.UTF_8);
            length += Varints.unsignedLength(nameBytes[i].length) + nameBytes[i].length + Varints.signedLength(expiry(i));
            ByteBuffer bytes = encoded(i);
            long[] state = state(i);
            if (bytes != null && SlidingLog.isSplice(state)) {
                int spliced = SlidingLog.splicedLength(bytes.remaining() / Long.BYTES, state);
                if (spliced <= FIXED_WIDTH_ABOVE) {
                    // Short: written as variable-length integers, as the log it stands for would be.
                    state = SlidingLog.spliced(bytes.asLongBuffer(), state);
                    setState(i, state);
                    setEncoded(i, null);
                    bytes = null;
                }
            }
            int longs = bytes == null ? storedLength(state)
                    : SlidingLog.isSplice(state) ? SlidingLog.splicedLength(bytes.remaining() / Long.BYTES, state)
                    : bytes.remaining() / Long.BYTES;
            if (bytes != null || longs > FIXED_WIDTH_ABOVE) {
                length += Varints.unsignedLength((long) longs << 1 | 1) + Long.BYTES * longs;
            } else {
                length += Varints.unsignedLength((long) longs << 1);
                for (int j = 0; j < longs; j++) {
                    length += Varints.signedLength(storedLong(state, j));
                }
            }
        }
        ByteBuffer out = ByteBuffer.allocate(length);
        out.put(format());
        Varints.writeUnsigned(out, size);
        for (int i = 0; i < size; i++) {
            Varints.writeUnsigned(out, nameBytes[i].length);
            out.put(nameBytes[i]);
            Varints.writeSigned(out, expiry(i));
            ByteBuffer bytes = encoded(i);
            long[] state = state(i);
            if (bytes != null && SlidingLog.isSplice(state)) {
                Varints.writeUnsigned(out, (long) SlidingLog.splicedLength(bytes.remaining() / Long.BYTES, state) << 1 | 1);
                SlidingLog.writeSpliced(bytes, state, out);
                continue;
            }
            if (bytes != null) {
                Varints.writeUnsigned(out, (long) bytes.remaining() / Long.BYTES << 1 | 1);
                out.put(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
                continue;
            }
            int longs = storedLength(state);
            if (longs <= FIXED_WIDTH_ABOVE) {
                Varints.writeUnsigned(out, (long) longs << 1);
                for (int j = 0; j < longs; j++) {
                    Varints.writeSigned(out, storedLong(state, j));
                }
                continue;
            }
            Varints.writeUnsigned(out, (long) longs << 1 | 1);
            int from = 0;
            if (SlidingLog.isInPlace(state)) {
                out.putLong(storedLong(state, 0)).putLong(storedLong(state, 1));
                from = (int) state[SlidingLog.HEAD];
            }
            int count = longs - (from == 0 ? 0 : 2);
            out.asLongBuffer().put(state, from, count);
            out.position(out.position() + Long.BYTES * count);
        }
        return out.array();
    }

    /**
     * The format this state is written in: {@link #FORMAT_VERSION_PACKED_HEADS} when a sliding
     * log is kept as a head of {@link ChunkedLog#TAG}, else {@link #FORMAT_VERSION_HEADS} when
     * one is still a head of the earlier layout (read, not changed), else {@link #FORMAT_VERSION}.
     */
    private byte format() {
        byte format = FORMAT_VERSION;
        for (int i = 0; i < size; i++) {
            ByteBuffer bytes = encoded(i);
            long[] state = state(i);
            long tag = bytes != null && bytes.remaining() >= Long.BYTES ? bytes.getLong(bytes.position())
                    : state.length > 0 ? state[0] : 0;
            if (tag == ChunkedLog.TAG && (bytes != null || ChunkedLog.isHead(state))) {
                return FORMAT_VERSION_PACKED_HEADS;
            }
            if (tag == ChunkedLog.TAG_LONG_GAP && (bytes != null || ChunkedLog.isHead(state))) {
                format = FORMAT_VERSION_HEADS;
            }
        }
        return format;
    }

    /** How many longs {@code state} is written as: a sliding log changed in place as its log of format 2. */
    private static int storedLength(long[] state) {
        return SlidingLog.isInPlace(state) ? SlidingLog.lengthAsFormat2(state) : state.length;
    }

    /** The long at {@code index} of {@code state} as it is written ({@link #storedLength}). */
    private static long storedLong(long[] state, int index) {
        return SlidingLog.isInPlace(state) ? SlidingLog.getAsFormat2(state, index) : state[index];
    }

    /**
     * Decides a request of {@code cost} for every limit, all-or-nothing: evaluates each limit
     * on its current state, charges all of them if and only if all admit, and records each
     * charged limit's expiry ({@code now + resetAfter}). States that have expired by
     * {@code nowMicros} are read as no state and dropped; states of limits not in {@code limits}
     * are kept.
     *
     * @throws IllegalArgumentException when {@code limits} is empty or {@code cost} is below 1
     */
    public Decision tryAcquire(List<Limit> limits, long nowMicros, long cost) {
        Objects.requireNonNull(limits, "limits");
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("need at least one limit");
        }
        Checks.cost(cost);
        boolean keptExpired = dropExpiredExceptShort(nowMicros);
        Decision decision = decideAndCharge(limits, nowMicros, cost);
        if (keptExpired) {
            // Those of limits that were not charged now: denied, or not in this request.
            dropExpired(nowMicros);
        }
        return decision;
    }

    /** {@link #tryAcquire(List, long, long)}'s decision and charges, on states of which the expired ones are short. */
    private Decision decideAndCharge(List<Limit> limits, long nowMicros, long cost) {
        if (limits.size() == 1) {
            // The common case, without the second pass of the general one.
            Limit limit = limits.get(0);
            int at = indexOf(limit.name(), 0);
            Transition transition = transition(limit, at, nowMicros, cost, NewState.IN_PLACE);
            Decision decision = Decisions.of(limit, transition);
            if (decision.allowed()) {
                charge(at, limit.name(), transition.resetAfterMicros(), transition.state(), nowMicros);
            }
            return decision;
        }
        int count = limits.size();
        Fold fold = new Fold();
        for (int i = 0; i < count && !fold.costExceedsCapacity(); i++) {
            // Nothing built: another limit may deny (a sliding log's copy would be wasted).
            Limit limit = limits.get(i);
            int at = indexOf(limit.name(), i);
            Algorithm algorithm = limit.algorithm();
            if (algorithm instanceof Probing && readInPlace(at) == null) {
                ((Probing) algorithm).fold(fold, i, inputState(at, nowMicros), nowMicros, limit, cost);
            } else {
                fold.add(i, transition(limit, at, nowMicros, cost, NewState.NONE));
            }
        }
        Decision decision = fold.decision(limits);
        if (!decision.allowed()) {
            return decision;
        }
        for (int i = 0; i < count; i++) {
            // Decided again, now writing the new state: the limits of one request have distinct
            // names (Store's contract), so charging one left the next one's state as the first
            // pass read it, and it admits again. A limit charged before may have been removed,
            // moving the others: look again.
            Limit limit = limits.get(i);
            int at = indexOf(limit.name(), i);
            Algorithm algorithm = limit.algorithm();
            if (algorithm instanceof Probing && readInPlace(at) == null) {
                ((Probing) algorithm).charge(this, at, inputState(at, nowMicros), nowMicros, limit, cost);
            } else {
                Transition admitted = transition(limit, at, nowMicros, cost, NewState.IN_PLACE);
                charge(at, limit.name(), admitted.resetAfterMicros(), admitted.state(), nowMicros);
            }
        }
        return decision;
    }

    /**
     * As {@link #tryAcquire(List, long, long)}, for a grid store that keeps each long sliding
     * log as a bounded head and chunks ({@link ChunkedLog}), so that an admission writes a
     * bounded value: a sliding log of more than {@code 2 C} entries becomes a head, whose
     * admissions ask {@code chunks} to {@linkplain LogChunks#flush flush} its oldest entries.
     * Returns {@code null}, changing nothing, when a decision needs a chunk that {@code chunks}
     * does not hold ({@link LogChunks#need} says which): the caller reads it and asks again.
     *
     * @throws IllegalArgumentException when {@code limits} is empty or {@code cost} is below 1
     */
    public @Nullable Decision tryAcquire(List<Limit> limits, long nowMicros, long cost, LogChunks chunks) {
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(chunks, "chunks");
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("need at least one limit");
        }
        Checks.cost(cost);
        if (allStayWhole(limits)) {
            return tryAcquire(limits, nowMicros, cost);
        }
        dropExpired(nowMicros);
        int count = limits.size();
        ChunkedLog.Outcome[] logs = new ChunkedLog.Outcome[count];
        Fold fold = new Fold();
        for (int i = 0; i < count && !fold.costExceedsCapacity(); i++) {
            Limit limit = limits.get(i);
            int at = indexOf(limit.name(), i);
            if (limit.algorithm() instanceof SlidingLog && !staysWhole(at)) {
                ChunkedLog.Outcome outcome = chunkedLog(limit, stateOf(at), nowMicros, cost, chunks);
                if (outcome == null) {
                    return null;
                }
                logs[i] = outcome;
                fold.add(i, Objects.requireNonNull(outcome.transition(), "decided"));
            } else {
                fold.add(i, transition(limit, at, nowMicros, cost, NewState.NONE));
            }
        }
        Decision decision = fold.decision(limits);
        if (!decision.allowed()) {
            return decision;
        }
        for (int i = 0; i < count; i++) {
            // As in tryAcquire: charging one limit left the next one's state as the first pass
            // read it; a sliding log's new state was made then.
            Limit limit = limits.get(i);
            int at = indexOf(limit.name(), i);
            ChunkedLog.Outcome log = logs[i];
            if (log != null) {
                Transition admitted = Objects.requireNonNull(log.transition(), "decided");
                charge(at, limit.name(), admitted.resetAfterMicros(), log.state(), nowMicros);
                ChunkedLog.Flush flush = log.flush();
                if (flush != null) {
                    chunks.flush(limit.name(), flush.birth(), flush.index(), flush.entries());
                }
            } else {
                Transition admitted = transition(limit, at, nowMicros, cost, NewState.IN_PLACE);
                charge(at, limit.name(), admitted.resetAfterMicros(), admitted.state(), nowMicros);
            }
        }
        return decision;
    }

    /**
     * Whether every sliding log of {@code limits} {@linkplain #staysWhole stays whole}, so that
     * the request decides as {@link #tryAcquire(List, long, long)} does, chunks never read or
     * asked for. Why: the chunked path's fold, its outcomes and a second transition per limit
     * cost a grid member a few hundred bytes per decision on a short log, which is most logs.
     */
    private boolean allStayWhole(List<Limit> limits) {
        for (int i = 0; i < limits.size(); i++) {
            Limit limit = limits.get(i);
            if (limit.algorithm() instanceof SlidingLog && !staysWhole(indexOf(limit.name()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the limit at {@code at} holds no head and a log that one admission leaves whole
     * ({@link ChunkedLog#staysWhole}), so that its sliding log decides as in
     * {@link #tryAcquire(List, long, long)}: on its encoded entries in place. Why: decoding such
     * a log and building its new one as an array (the head's path) cost two copies of it per
     * decision, 3.2 KB of a grid member's allocation per admission on a log of 100 entries.
     */
    private boolean staysWhole(int at) {
        if (at < 0) {
            return true;
        }
        ByteBuffer bytes = encoded(at);
        long[] state = state(at);
        if (bytes == null) {
            return !ChunkedLog.isHead(state) && CHUNKED_LOG.staysWhole(storedLength(state));
        }
        int longs = bytes.remaining() / Long.BYTES;
        if (SlidingLog.isSplice(state)) {
            return CHUNKED_LOG.staysWhole(SlidingLog.splicedLength(longs, state));
        }
        return !ChunkedLog.isHeadTag(bytes.getLong(bytes.position())) && CHUNKED_LOG.staysWhole(longs);
    }

    /** A sliding log's outcome on {@code state}, its chunks read from {@code chunks}; {@code null} when one is needed. */
    private static ChunkedLog.@Nullable Outcome chunkedLog(Limit limit, long @Nullable [] state, long nowMicros,
                                                          long cost, LogChunks chunks) {
        String name = limit.name();
        long birth = ChunkedLog.birth(state);
        ChunkedLog.Outcome outcome = CHUNKED_LOG.decide(state, nowMicros, limit, cost,
                index -> chunks.chunk(name, birth, index));
        if (outcome.needsChunk()) {
            chunks.need(name, birth, outcome.neededChunk());
            return null;
        }
        return outcome;
    }

    /**
     * Records that the caller wrote chunk {@code index} of the sliding log of the limit named
     * {@code limitName} whose head was made at {@code birth}, the chunk's first entry at
     * {@code firstTime} ({@link LogChunks#flush}): the head drops those entries into its gap.
     * Returns whether the state changed (so it must be stored): not for an acknowledgement
     * that is stale, repeated, or of an earlier life of the log.
     */
    public boolean acked(String limitName, long birth, long index, long firstTime) {
        int at = indexOf(Objects.requireNonNull(limitName, "limitName"));
        if (at < 0) {
            return false;
        }
        long[] head = Objects.requireNonNull(stateOf(at), "held");
        long[] next = CHUNKED_LOG.acked(head, birth, index, firstTime);
        if (next == head) {
            return false;
        }
        setState(at, next);
        return true;
    }

    /**
     * The decision {@link #tryAcquire} would give now when it is a denial, without changing
     * anything; {@code null} when it would admit. Only reads this state (an expired state is
     * read as absent, an encoded one in place or decoded into a copy), so that a store may
     * run it optimistically, without its lock, and take the lock only to admit: on a busy key
     * most decisions are denials, which then leave the state's memory unwritten. Such a store
     * must check afterwards that no change overlapped the read, and throw its result away if
     * one did: {@link #tryAcquire} writes admissions into the states' arrays in place.
     *
     * @throws IllegalArgumentException when {@code limits} is empty or {@code cost} is below 1
     */
    public @Nullable Decision denial(List<Limit> limits, long nowMicros, long cost) {
        Objects.requireNonNull(limits, "limits");
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("need at least one limit");
        }
        Checks.cost(cost);
        if (limits.size() == 1) {
            return denial(limits.get(0), 0, nowMicros, cost, Probing.ADMITS + 1);
        }
        // Decisions.combine's rule (the first limit of the highest rank binds), read from the last
        // limit back: a limit whose rank is at least that of every later one binds so far, and
        // only then is its decision built, from the transition that ranked it. Why: a decision or
        // transition per limit, kept to compare them, was allocated (120 bytes per mission denial
        // on a hot key against 48 for one limit), and ranking every limit before deciding the
        // binding one again took a transition more. Why backwards: a limit listed later mostly
        // has the longer period and so the longer wait (the mission's per-minute budget after its
        // per-second limit), so the decision built first is mostly the one that binds.
        Decision binding = null;
        long atLeast = Probing.ADMITS + 1;
        for (int i = limits.size() - 1; i >= 0; i--) {
            Decision denial = denial(limits.get(i), i, nowMicros, cost, atLeast);
            if (denial != null) {
                binding = denial;
                atLeast = Probing.rank(denial);
            }
        }
        return binding;
    }

    /**
     * A limit's denial on its state as {@link #tryAcquire} would see it after dropping the
     * expired states, without dropping or decoding anything, and without building an
     * admission's new state, which a denial does not need; {@code null} when the limit admits
     * or its {@link Probing#rank} is below {@code atLeast} (above {@link Probing#ADMITS}).
     * {@code expectedAt} is the limit's place in its request ({@link #indexOf(String, int)}).
     */
    private @Nullable Decision denial(Limit limit, int expectedAt, long nowMicros, long cost, long atLeast) {
        int at = liveIndexOf(limit, expectedAt, nowMicros);
        Algorithm algorithm = limit.algorithm();
        // Only a sliding log decides on encoded longs in place: no other algorithm looks for them.
        ByteBuffer bytes = algorithm instanceof SlidingLog ? readInPlace(at) : null;
        if (bytes != null) {
            return Decisions.denial(limit,
                    ((SlidingLog) algorithm).transition(bytes.asLongBuffer(), nowMicros, limit, cost, false), atLeast);
        }
        long[] state = at < 0 ? null : decodedCopy(at);
        return algorithm instanceof Probing
                ? ((Probing) algorithm).denial(state, nowMicros, limit, cost, atLeast)
                : Decisions.denial(limit, algorithm.transition(state, nowMicros, limit, cost), atLeast);
    }

    /**
     * The index of the limit's state, negative when none is held or it has expired by
     * {@code nowMicros}; looked for first at {@code expectedAt} ({@link #indexOf(String, int)}).
     */
    private int liveIndexOf(Limit limit, int expectedAt, long nowMicros) {
        int at = indexOf(limit.name(), expectedAt);
        return expired(at, nowMicros) ? -1 : at;
    }

    /** Whether a state is held at {@code at} (not negative) that has expired by {@code nowMicros}. */
    private boolean expired(int at, long nowMicros) {
        return at >= 0 && expiry(at) <= nowMicros;
    }

    /**
     * Takes a batch of tokens from every limit at once, for one instance to spend locally:
     * the largest count up to {@code maxTokens} that every limit admits now, charged to all
     * of them (as {@link #tryAcquire} of that cost would). When one limit cannot give a single
     * token, nothing is charged and the lease holds 0 tokens and the denial of one token.
     *
     * <p>Constant time per limit: each limit's count is read from what a one-token request
     * would leave ({@code remaining + 1}), which for the leasable algorithms is exactly the
     * largest cost it admits now.
     *
     * @param maxTokens the most tokens to take, at least 1
     * @return the lease, taken at {@code nowMicros}
     * @throws IllegalArgumentException when {@code limits} is empty, {@code maxTokens} is below
     *     1, or a limit's algorithm cannot be leased ({@link Leasing#supports})
     */
    public Lease lease(List<Limit> limits, long nowMicros, long maxTokens) {
        Objects.requireNonNull(limits, "limits");
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("need at least one limit");
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1: " + maxTokens);
        }
        for (Limit limit : limits) {
            Leasing.of(limit);
        }
        int count = limits.size();
        Transition[] probes = new Transition[count];
        long tokens = maxTokens;
        for (int i = 0; i < count; i++) {
            Limit limit = limits.get(i);
            probes[i] = limit.algorithm().transition(stateOf(liveIndexOf(limit, i, nowMicros)), nowMicros, limit, 1);
            if (probes[i].allowed()) {
                tokens = Math.min(tokens, probes[i].remaining() + 1);
            }
        }
        Decision probe = Decisions.combine(limits, probes);
        if (!probe.allowed()) {
            // As tryAcquire leaves a key it denies. Not dropped before the probes: tryAcquire
            // charges an expired state again in its place (dropExpiredExceptShort).
            dropExpired(nowMicros);
            return new Lease(0, nowMicros, probe);
        }
        Decision decision = tryAcquire(limits, nowMicros, tokens);
        if (!decision.allowed()) {
            throw new IllegalStateException("a limit admitted one token with " + tokens
                    + " remaining but denied a request of " + tokens + ": " + decision);
        }
        return new Lease(tokens, nowMicros, decision);
    }

    /**
     * Gives back {@code unused} tokens of a lease taken at {@code takenAtMicros} with these
     * limits, to each limit whose algorithm can take them back without ever admitting more
     * than if they had never been taken: a token bucket (capped at its capacity), GCRA (the
     * arrival time moved back, never before now), a fixed window or sliding window counter
     * only while its window is still the one the lease was charged in. Tokens a limit cannot
     * take back are dropped there: leasing may under-admit, never over-admit. Each state keeps
     * its expiry, which stays a safe bound.
     *
     * @param unused the lease's tokens not spent, at least 0 (0 does nothing)
     * @throws IllegalArgumentException when {@code limits} is empty, {@code unused} is negative,
     *     or a limit's algorithm cannot be leased
     */
    public void giveBack(List<Limit> limits, long nowMicros, long takenAtMicros, long unused) {
        Objects.requireNonNull(limits, "limits");
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("need at least one limit");
        }
        if (unused < 0) {
            throw new IllegalArgumentException("unused tokens must not be negative: " + unused);
        }
        for (Limit limit : limits) {
            Leasing.of(limit);
        }
        if (unused == 0) {
            return;
        }
        dropExpired(nowMicros);
        for (Limit limit : limits) {
            int at = indexOf(limit.name());
            if (at >= 0) {
                long[] returned = Leasing.of(limit).giveBack(stateOf(at), nowMicros, limit, takenAtMicros, unused);
                if (returned != null) {
                    setState(at, returned);
                }
            }
        }
    }

    /** The latest expiry of the states held, in microseconds since the epoch; 0 when empty. */
    public long expiresAtMicros() {
        long latest = 0;
        for (int i = 0; i < size; i++) {
            latest = Math.max(latest, expiry(i));
        }
        return latest;
    }

    /** Whether no state is held. */
    public boolean isEmpty() {
        return size == 0;
    }

    /** Whether a state for the limit with this name is held and has not expired at {@code nowMicros}. */
    public boolean holds(String limitName, long nowMicros) {
        int at = indexOf(Objects.requireNonNull(limitName, "limitName"));
        return at >= 0 && expiry(at) > nowMicros;
    }

    /**
     * Keeps an admitted transition's new state (its {@code resetAfterMicros} and {@code state})
     * for the limit {@code name} at {@code at} (none when negative), or drops the limit's state
     * when the admission left it fully reset.
     */
    void charge(int at, String name, long resetAfterMicros, long @Nullable [] state, long nowMicros) {
        if (resetAfterMicros > 0) {
            // Admitted, so it has a state: Transition.allowed requires one.
            put(at, name, Objects.requireNonNull(state, "admitted transition's state"), nowMicros + resetAfterMicros);
        } else if (at >= 0) {
            remove(at);
        }
    }

    /**
     * The limit's transition on the state at {@code at} (none when negative); a sliding log's
     * on its encoded longs when they were not decoded. A built-in algorithm's admission makes
     * its new state as {@code newState} says ({@link Probing}): written into this state's own
     * array ({@link NewState#IN_PLACE}) is safe because the store excludes other writers while
     * it runs, and a reader without its lock ({@link #denial}) validates what it read.
     */
    private Transition transition(Limit limit, int at, long nowMicros, long cost, NewState newState) {
        ByteBuffer bytes = readInPlace(at);
        Algorithm algorithm = limit.algorithm();
        if (bytes != null && algorithm instanceof SlidingLog) {
            return ((SlidingLog) algorithm).transition(bytes.asLongBuffer(), nowMicros, limit, cost,
                    newState != NewState.NONE);
        }
        return algorithm instanceof Probing
                ? ((Probing) algorithm).transition(inputState(at, nowMicros), nowMicros, limit, cost, newState)
                : algorithm.transition(expired(at, nowMicros) ? null : stateOf(at), nowMicros, limit, cost);
    }

    /**
     * What a built-in algorithm decides the limit at {@code at} on: its state ({@link #stateOf});
     * for a state that expired by {@code nowMicros} (a short one, {@link #dropExpiredExceptShort}), its
     * array with its tag cleared; for a limit with none (negative), a short array that no limit
     * holds any more, kept past {@link #size} when its limit's state was dropped, with its tag
     * cleared. Every algorithm reads a cleared tag as no state ({@link Algorithm}), and an
     * admission writes its new state into the array ({@link NewState#IN_PLACE}) when it has the
     * length. Why: a key decided less often than its limits reset (most keys of many) dropped
     * its states between requests and allocated new ones in each; the arrays are still its own.
     * An expired state's array is reused in its own slot, so that the admission that charges it
     * again neither moves the later limits down nor appends this one after them.
     */
    private long @Nullable [] inputState(int at, long nowMicros) {
        if (at >= 0 && !expired(at, nowMicros)) {
            return stateOf(at);
        }
        long[] spare = at >= 0 ? state(at) : size < capacity() ? state(size) : null;
        if (spare == null || spare.length == 0) {
            return null;
        }
        spare[0] = 0;
        return spare;
    }

    /** The state at {@code at} as an array, decoded now if it was still encoded; none when negative. */
    private long @Nullable [] stateOf(int at) {
        if (at < 0) {
            return null;
        }
        if (encoded(at) != null) {
            setState(at, decodedCopy(at));
            setEncoded(at, null);
        }
        return state(at);
    }

    /**
     * The encoded longs of the state at {@code at} when a sliding log can decide on them in
     * place: still encoded, and not admitted into since ({@link #put}); else {@code null}.
     */
    private @Nullable ByteBuffer readInPlace(int at) {
        return at >= 0 && state(at) == NOT_DECODED ? encoded(at) : null;
    }

    /** The state at {@code at} as an array, decoded into a new one if it is still encoded, which stays so. */
    private long[] decodedCopy(int at) {
        ByteBuffer bytes = encoded(at);
        long[] state = state(at);
        if (bytes == null) {
            return state;
        }
        if (SlidingLog.isSplice(state)) {
            return SlidingLog.spliced(bytes.asLongBuffer(), state);
        }
        long[] decoded = new long[bytes.remaining() / Long.BYTES];
        bytes.asLongBuffer().get(decoded);
        return decoded;
    }

    /**
     * The index of the limit named {@code name} (negative when none is held), looked for first
     * at {@code expectedAt}, the limit's place in its request. Why: a key's limits are stored in
     * the order of the request that first charged them, which is mostly every request's order,
     * and the name there is then the request's own object, which {@code equals} matches at
     * once. A scan from the first compared a request's third limit with two other names first:
     * on a hot key's three-limit denial, finding the states was about a sixth of its samples
     * (JFR, benchmarks-history.md 2026-12-04 17:00 UTC).
     */
    private int indexOf(String name, int expectedAt) {
        return expectedAt < size && name.equals(name(expectedAt)) ? expectedAt : indexOf(name);
    }

    private int indexOf(String name) {
        for (int i = 0; i < size; i++) {
            if (name.equals(name(i))) {
                return i;
            }
        }
        return -1;
    }

    private void put(int at, String name, long[] state, long expiresAtMicros) {
        if (at < 0) {
            if (size == capacity()) {
                // Room for three at first: a key of up to three limits (per second, per day, an
                // endpoint's budget) grows once.
                growTo(Math.max(3, 2 * size));
            }
            at = size++;
            setName(at, name);
        }
        setState(at, state);
        if (!SlidingLog.isSplice(state)) {
            // A splice describes a sliding log by its encoding, which it keeps (see encode).
            setEncoded(at, null);
        }
        setExpiry(at, expiresAtMicros);
    }

    /**
     * Removes the entry at {@code at}, keeping the others in their order, and keeps its state's
     * array past the end for the next limit without a state ({@link #inputState}).
     */
    private void remove(int at) {
        long[] removed = state(at);
        boolean spare = isShort(at);
        for (int i = at + 1; i < size; i++) {
            setName(i - 1, name(i));
            setState(i - 1, state(i));
            setEncoded(i - 1, encoded(i));
            setExpiry(i - 1, expiry(i));
        }
        size--;
        setName(size, null);
        setState(size, spare ? removed : NO_SPARE);
        setEncoded(size, null);
    }

    /**
     * Whether the state at {@code at} is a short array that a limit without a state may reuse
     * ({@link #inputState}): not a long one (a sliding log's), which would hold its memory and
     * which no other state fits, nor one that stands for an encoding ({@code NOT_DECODED}, a
     * splice).
     */
    private boolean isShort(int at) {
        return state(at).length <= FIXED_WIDTH_ABOVE && encoded(at) == null;
    }

    /** How many limits fit before the arrays grow: the first in fields, the others in the arrays. */
    private int capacity() {
        return 1 + namesAndStates.length / 2;
    }

    /** Makes room for {@code capacity} limits (more than one): the first's fields and the arrays for the rest. */
    private void growTo(int capacity) {
        int length = capacity - 1;
        namesAndStates = Arrays.copyOf(namesAndStates, 2 * length);
        if (encoded.length > 0) {
            encoded = Arrays.copyOf(encoded, length);
        }
        expiries = Arrays.copyOf(expiries, length);
    }

    /** The name of the limit at {@code at}, below {@link #size}. */
    private String name(int at) {
        return at == 0 ? Objects.requireNonNull(firstName, "firstName") : (String) namesAndStates[2 * at - 2];
    }

    private void setName(int at, @Nullable String name) {
        if (at == 0) {
            firstName = name;
        } else {
            namesAndStates[2 * at - 2] = name;
        }
    }

    /** The state at {@code at}: below {@link #size} a limit's, at {@link #size} a spare array or none (null or empty). */
    private long[] state(int at) {
        return at == 0 ? firstState : (long[]) namesAndStates[2 * at - 1];
    }

    private void setState(int at, long[] state) {
        if (at == 0) {
            firstState = state;
        } else {
            namesAndStates[2 * at - 1] = state;
        }
    }

    /**
     * The encoded longs of the state at {@code at}, if it is still encoded. Past the first limit
     * they are in {@link #encoded}, which stays the shared empty array until a state there is
     * decoded in place (a grid store's sliding log): the local store never reads it.
     */
    private @Nullable ByteBuffer encoded(int at) {
        return at == 0 ? firstEncoded : at <= encoded.length ? encoded[at - 1] : null;
    }

    private void setEncoded(int at, @Nullable ByteBuffer bytes) {
        if (at == 0) {
            firstEncoded = bytes;
        } else if (at <= encoded.length) {
            encoded[at - 1] = bytes;
        } else if (bytes != null) {
            encoded = Arrays.copyOf(encoded, capacity() - 1);
            encoded[at - 1] = bytes;
        }
    }

    private long expiry(int at) {
        return at == 0 ? firstExpiry : expiries[at - 1];
    }

    private void setExpiry(int at, long expiresAtMicros) {
        if (at == 0) {
            firstExpiry = expiresAtMicros;
        } else {
            expiries[at - 1] = expiresAtMicros;
        }
    }

    private void dropExpired(long nowMicros) {
        for (int i = size - 1; i >= 0; i--) {
            if (expiry(i) <= nowMicros) {
                remove(i);
            }
        }
    }

    /**
     * Drops the states that have expired by {@code nowMicros} except the short ones that are not
     * a sliding log's, which stay in their slots for {@link #tryAcquire(List, long, long)} to read
     * as no state and charge again in place ({@link #inputState}); returns whether it kept one,
     * which the caller drops once it has decided. Why: a key visited less often than its limits
     * reset (every ~0.1 s on 100,000 keys, a per-second bucket reset 10 ms after an admission)
     * removed its expired states at each decision, moving the later limits' names, states and
     * expiries down, and appended them again when charged. Not a sliding log's: its array kept
     * in memory has room to spare and its decoded one none, so one would stay where the other
     * moves, and a grid store that decodes the key for every request would write its limits in
     * another order than the state kept in memory.
     */
    private boolean dropExpiredExceptShort(long nowMicros) {
        boolean kept = false;
        for (int i = size - 1; i >= 0; i--) {
            if (expiry(i) <= nowMicros) {
                if (isShort(i) && state(i).length > 0 && state(i)[0] >> 8 != SlidingLog.ID) {
                    kept = true;
                } else {
                    remove(i);
                }
            }
        }
        return kept;
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("KeyState[");
        for (int i = 0; i < size; i++) {
            text.append(name(i)).append(" until ").append(expiry(i)).append(", ");
        }
        return text.append(']').toString();
    }

    /** Reads the variable-length integers of an encoding, rejecting truncated input. */
    private static final class Reader {
        private final byte[] bytes;
        private int position;

        Reader(byte[] bytes) {
            this.bytes = bytes;
        }

        int readByte() {
            if (position >= bytes.length) {
                throw new IllegalArgumentException("KeyState encoding truncated at byte " + position);
            }
            return bytes[position++];
        }

        long readUnsigned() {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = readByte();
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
            throw new IllegalArgumentException("KeyState encoding has a varint longer than 10 bytes at byte "
                    + position);
        }

        long readLong() {
            long zigZag = readUnsigned();
            return (zigZag >>> 1) ^ -(zigZag & 1);
        }

        int readLength() {
            return checkedLength(readUnsigned());
        }

        /** {@code length} as a count of items of at least one byte that the rest of the encoding can hold. */
        int checkedLength(long length) {
            if (length < 0 || length > bytes.length - position) {
                throw new IllegalArgumentException("KeyState encoding has a length of " + length
                        + " at byte " + position + " beyond its " + bytes.length + " bytes");
            }
            return (int) length;
        }

        byte[] readBytes(int length) {
            byte[] result = Arrays.copyOfRange(bytes, position, position + length);
            position += length;
            return result;
        }

        /** The next {@code count} fixed-width longs, in place (a view of the encoding's bytes). */
        ByteBuffer readFixed(int count) {
            long length = (long) Long.BYTES * count;
            if (length > bytes.length - position) {
                throw new IllegalArgumentException("KeyState encoding has " + count + " longs at byte " + position
                        + " beyond its " + bytes.length + " bytes");
            }
            ByteBuffer view = ByteBuffer.wrap(bytes, position, (int) length).slice();
            position += (int) length;
            return view;
        }

        boolean atEnd() {
            return position == bytes.length;
        }

        int left() {
            return bytes.length - position;
        }
    }
}
