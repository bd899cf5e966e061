package io.sluice.algorithms;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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

    private static final class Entry {
        long[] state;
        long expiresAtMicros;

        Entry(long[] state, long expiresAtMicros) {
            this.state = state;
            this.expiresAtMicros = expiresAtMicros;
        }
    }

    private final Map<String, Entry> entries;

    private KeyState(Map<String, Entry> entries) {
        this.entries = entries;
    }

    /** A key with no state: every limit fresh. */
    public static KeyState empty() {
        return new KeyState(new LinkedHashMap<>());
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
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String name = new String(reader.readBytes(reader.readLength()), StandardCharsets.UTF_8);
            long expiresAt = reader.readLong();
            long[] state = new long[reader.readLength()];
            for (int j = 0; j < state.length; j++) {
                state[j] = reader.readLong();
            }
            entries.put(name, new Entry(state, expiresAt));
        }
        if (!reader.atEnd()) {
            throw new IllegalArgumentException("KeyState encoding has " + reader.left()
                    + " trailing bytes");
        }
        return new KeyState(entries);
    }

    /** This state in the compact, versioned binary format that {@link #decode} reads. */
    public byte[] encode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 + 32 * entries.size());
        out.write(FORMAT_VERSION);
        writeUnsigned(out, entries.size());
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            writeUnsigned(out, name.length);
            out.write(name, 0, name.length);
            writeSigned(out, e.getValue().expiresAtMicros);
            long[] state = e.getValue().state;
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
        List<Transition> transitions = new ArrayList<>(limits.size());
        for (Limit limit : limits) {
            Entry entry = entries.get(limit.name());
            transitions.add(limit.algorithm().transition(entry == null ? null : entry.state, nowMicros, limit, cost));
        }
        Decision decision = Decisions.combine(limits, transitions);
        if (decision.allowed()) {
            for (int i = 0; i < limits.size(); i++) {
                Transition transition = transitions.get(i);
                String name = limits.get(i).name();
                if (transition.resetAfterMicros() > 0) {
                    // Admitted, so it has a state: Transition.allowed requires one.
                    long[] state = Objects.requireNonNull(transition.state(), "admitted transition's state");
                    entries.put(name, new Entry(state, nowMicros + transition.resetAfterMicros()));
                } else {
                    entries.remove(name);
                }
            }
        }
        return decision;
    }

    /** The latest expiry of the states held, in microseconds since the epoch; 0 when empty. */
    public long expiresAtMicros() {
        long latest = 0;
        for (Entry entry : entries.values()) {
            latest = Math.max(latest, entry.expiresAtMicros);
        }
        return latest;
    }

    /** Whether no state is held. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** Whether a state for the limit with this name is held and has not expired at {@code nowMicros}. */
    public boolean holds(String limitName, long nowMicros) {
        Entry entry = entries.get(Objects.requireNonNull(limitName, "limitName"));
        return entry != null && entry.expiresAtMicros > nowMicros;
    }

    private void dropExpired(long nowMicros) {
        for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            if (it.next().expiresAtMicros <= nowMicros) {
                it.remove();
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("KeyState[");
        entries.forEach((name, entry) -> text.append(name).append(" until ").append(entry.expiresAtMicros)
                .append(", "));
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
            byte[] result = java.util.Arrays.copyOfRange(bytes, position, position + length);
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
