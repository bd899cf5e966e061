package io.sluice.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The encodings of {@link io.sluice.algorithms.KeyState} that stores have written, each frozen
 * here as it was released, so that a store's {@link PreviousFormat.Writer} can put state of an
 * older format into its back end (the local store's state never outlives its process; the
 * Hazelcast and Ignite stores keep {@code KeyState} encodings in their maps and caches).
 */
public final class KeyStateFormats {

    private KeyStateFormats() {
    }

    /**
     * Format version 1: the byte {@code 1}, the number of limits, then per limit its name
     * (UTF-8, length-prefixed), its expiry and its state; every number a variable-length
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
            long[] state = held.state();
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
