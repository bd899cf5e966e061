package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.io.ByteArrayOutputStream;
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
 * its name (UTF-8, length-prefixed), its expiry and its state, as variable-length integers.
 */
public final class KeyState {

    /** The first byte of every encoding; a rolling upgrade reads older versions. */
    static final byte FORMAT_VERSION = 1;

    /** The limits' names, states and expiries, in parallel; a key has few limits, so a scan finds one. */
    private String[] names;
    private long[][] states;
    private long[] expiries;
    private int size;

    private KeyState(int capacity) {
        this.names = new String[capacity];
        this.states = new long[capacity][];
        this.expiries = new long[capacity];
    }

    /** A key with no state: every limit fresh. */
    public static KeyState empty() {
        return new KeyState(2);
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
        if (version != FORMAT_VERSION) {
            throw new IllegalArgumentException("unknown KeyState format version: " + version);
        }
        int count = reader.readLength();
        KeyState decoded = new KeyState(Math.max(1, count));
        for (int i = 0; i < count; i++) {
            String name = new String(reader.readBytes(reader.readLength()), StandardCharsets.UTF_8);
            long expiresAt = reader.readLong();
            long[] state = new long[reader.readLength()];
            for (int j = 0; j < state.length; j++) {
                state[j] = reader.readLong();
            }
            decoded.put(decoded.indexOf(name), name, state, expiresAt);
        }
        if (!reader.atEnd()) {
            throw new IllegalArgumentException("KeyState encoding has " + reader.left()
                    + " trailing bytes");
        }
        return decoded;
    }

    /** This state in the compact, versioned binary format that {@link #decode} reads. */
    public byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 + 32 * size);
        out.write(FORMAT_VERSION);
        writeUnsigned(out, size);
        for (int i = 0; i < size; i++) {
            byte[] name = names[i].getBytes(StandardCharsets.UTF_8);
            writeUnsigned(out, name.length);
            out.write(name, 0, name.length);
            writeSigned(out, expiries[i]);
            long[] state = states[i];
            writeUnsigned(out, state.length);
            for (long value : state) {
                writeSigned(out, value);
            }
        }
        return out.toByteArray();
    }

    /**
     * Decides a request of {@code cost} for every limit, all-or-nothing: evaluates each limit
     * on its current state, charges all of them if and only if all admit, and records each
     * charged limit's expiry ({@code now + resetAfter}). States that have expired by
     * {@code nowMicros} are dropped first; states of limits not in {@code limits} are kept.
     *
     * @throws IllegalArgumentException when {@code limits} is empty or {@code cost} is below 1
     */
    public Decision tryAcquire(List<Limit> limits, long nowMicros, long cost) {
        Objects.requireNonNull(limits, "limits");
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("need at least one limit");
        }
        Checks.cost(cost);
        dropExpired(nowMicros);
        if (limits.size() == 1) {
            // The common case, without the arrays of the general one.
            Limit limit = limits.get(0);
            int at = indexOf(limit.name());
            Transition transition = limit.algorithm().transition(at < 0 ? null : states[at], nowMicros, limit, cost);
            Decision decision = Decisions.of(limit, transition);
            if (decision.allowed()) {
                charge(at, limit.name(), transition, nowMicros);
            }
            return decision;
        }
        int count = limits.size();
        Transition[] transitions = new Transition[count];
        for (int i = 0; i < count; i++) {
            Limit limit = limits.get(i);
            long[] state = stateOf(limit.name());
            // A sliding log that would admit is not copied yet: another limit may deny.
            transitions[i] = limit.algorithm() instanceof SlidingLog
                    ? ((SlidingLog) limit.algorithm()).transition(state, nowMicros, limit, cost, false)
                    : limit.algorithm().transition(state, nowMicros, limit, cost);
        }
        Decision decision = Decisions.combine(limits, transitions);
        if (decision.allowed()) {
            for (int i = 0; i < count; i++) {
                Limit limit = limits.get(i);
                if (limit.algorithm() instanceof SlidingLog) {
                    transitions[i] = limit.algorithm().transition(stateOf(limit.name()), nowMicros, limit, cost);
                }
            }
            for (int i = 0; i < count; i++) {
                // A limit charged before may have been removed, moving the others: look again.
                String name = limits.get(i).name();
                charge(indexOf(name), name, transitions[i], nowMicros);
            }
        }
        return decision;
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
        dropExpired(nowMicros);
        int count = limits.size();
        Transition[] probes = new Transition[count];
        long tokens = maxTokens;
        for (int i = 0; i < count; i++) {
            Limit limit = limits.get(i);
            probes[i] = limit.algorithm().transition(stateOf(limit.name()), nowMicros, limit, 1);
            if (probes[i].allowed()) {
                tokens = Math.min(tokens, probes[i].remaining() + 1);
            }
        }
        Decision probe = Decisions.combine(limits, probes);
        if (!probe.allowed()) {
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
                long[] returned = Leasing.of(limit).giveBack(states[at], nowMicros, limit, takenAtMicros, unused);
                if (returned != null) {
                    states[at] = returned;
                }
            }
        }
    }

    /** The latest expiry of the states held, in microseconds since the epoch; 0 when empty. */
    public long expiresAtMicros() {
        long latest = 0;
        for (int i = 0; i < size; i++) {
            latest = Math.max(latest, expiries[i]);
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
        return at >= 0 && expiries[at] > nowMicros;
    }

    private void charge(int at, String name, Transition transition, long nowMicros) {
        if (transition.resetAfterMicros() > 0) {
            // Admitted, so it has a state: Transition.allowed requires one.
            long[] state = Objects.requireNonNull(transition.state(), "admitted transition's state");
            put(at, name, state, nowMicros + transition.resetAfterMicros());
        } else if (at >= 0) {
            remove(at);
        }
    }

    private long @Nullable [] stateOf(String name) {
        int at = indexOf(name);
        return at < 0 ? null : states[at];
    }

    private int indexOf(String name) {
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private void put(int at, String name, long[] state, long expiresAtMicros) {
        if (at < 0) {
            if (size == names.length) {
                int capacity = 2 * size;
                names = Arrays.copyOf(names, capacity);
                states = Arrays.copyOf(states, capacity);
                expiries = Arrays.copyOf(expiries, capacity);
            }
            at = size++;
            names[at] = name;
        }
        states[at] = state;
        expiries[at] = expiresAtMicros;
    }

    /** Removes the entry at {@code at}, keeping the others in their order. */
    private void remove(int at) {
        int after = size - at - 1;
        System.arraycopy(names, at + 1, names, at, after);
        System.arraycopy(states, at + 1, states, at, after);
        System.arraycopy(expiries, at + 1, expiries, at, after);
        size--;
        names[size] = null;
        states[size] = null;
    }

    private void dropExpired(long nowMicros) {
        for (int i = size - 1; i >= 0; i--) {
            if (expiries[i] <= nowMicros) {
                remove(i);
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("KeyState[");
        for (int i = 0; i < size; i++) {
            text.append(names[i]).append(" until ").append(expiries[i]).append(", ");
        }
        return text.append(']').toString();
    }

    private static void writeSigned(ByteArrayOutputStream out, long value) {
        writeUnsigned(out, (value << 1) ^ (value >> 63));
    }

    private static void writeUnsigned(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
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
            long length = readUnsigned();
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

        boolean atEnd() {
            return position == bytes.length;
        }

        int left() {
            return bytes.length - position;
        }
    }
}
