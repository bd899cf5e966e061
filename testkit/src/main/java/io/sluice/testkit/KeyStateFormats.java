package io.sluice.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The encodings of {@link io.sluice.algorithms.KeyState}, and the algorithms' states inside
 * them, that stores have written, each frozen here as it was released, so that a store's
 * {@link PreviousFormat.Writer} can put state of an older format into its back end (the local
 * store's state never outlives its process; the Hazelcast and Ignite stores keep
 * {@code KeyState} encodings in their maps and caches; the Redis store's key schema 1 held the
 * algorithms' states in text).
 */
public final class KeyStateFormats {

    /** The sliding log's id, and the tags of its state formats 1 (costs) and 2 (running totals). */
    private static final long SLIDING_LOG_ID = 2;
    private static final long SLIDING_LOG_FORMAT_1 = SLIDING_LOG_ID * 256 + 1;
    private static final long SLIDING_LOG_FORMAT_2 = SLIDING_LOG_ID * 256 + 2;

    private KeyStateFormats() {
    }

    /**
     * A limit's state as the first release held it: the sliding log's in its format 1,
     * {@code [tag, t1, c1, t2, c2, ...]} with each entry's cost (format 2, the current one,
     * holds running totals after a base: {@code [tag, base, t1, s1, ...]}); the other
     * algorithms' states have not changed.
     */
    public static long[] stateVersion1(HeldState held) {
        long[] state = held.state();
        if (held.limit().algorithm().id() != SLIDING_LOG_ID || state.length < 2
                || state[0] != SLIDING_LOG_FORMAT_2) {
            return state;
        }
        long[] costs = new long[state.length - 1];
        costs[0] = SLIDING_LOG_FORMAT_1;
        long total = state[1];
        for (int i = 2; i + 1 < state.length; i += 2) {
            costs[i - 1] = state[i];
            costs[i] = state[i + 1] - total;
            total = state[i + 1];
        }
        return costs;
    }

    /**
     * Format version 1, as the first release wrote it: the byte {@code 1}, the number of
     * limits, then per limit its name (UTF-8, length-prefixed), its expiry and its
     * {@linkplain #stateVersion1 state of that release}; every number a variable-length
     * integer (7 bits a byte, low bits first), signed ones zig-zag encoded.
     */
    public static byte[] version1(List<HeldState> states) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(1);
        writeUnsigned(out, states.size());
        for (HeldState held : states) {
            byte[] name = held.limit().name().getBytes(StandardCharsets.UTF_8);
            writeUnsigned(out, name.length);
            out.write(name, 0, name.length);
            writeSigned(out, held.expiresAtMicros());
            long[] state = stateVersion1(held);
            writeUnsigned(out, state.length);
            for (long value : state) {
                writeSigned(out, value);
            }
        }
        return out.toByteArray();
    }

    private static void writeSigned(ByteArrayOutputStream out, long value) {
        writeUnsigned(out, (value << 1) ^ (value >> 63));
    }

    private static void writeUnsigned(ByteArrayOutputStream out, long value) {
        long rest = value;
        while ((rest & ~0x7FL) != 0) {
            out.write((int) ((rest & 0x7F) | 0x80));
            rest >>>= 7;
        }
        out.write((int) rest);
    }
}
