package io.sluice.algorithms;

import java.nio.ByteBuffer;

/**
 * Variable-length integers, 7 bits a byte, low bits first; signed values zig-zag encoded so that
 * small negative values are short too. Used by {@link KeyState}'s encoding and by the chunks of
 * long sliding logs on the wire ({@link LogChunks#putEntries}).
 */
final class Varints {

    /** The most bytes a long takes: 64 bits, 7 a byte. */
    private static final int MAX_BYTES = 10;

    private Varints() {
    }

    static void writeSigned(ByteBuffer out, long value) {
        writeUnsigned(out, (value << 1) ^ (value >> 63));
    }

    static void writeUnsigned(ByteBuffer out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.put((byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.put((byte) value);
    }

    /** The bytes {@link #writeSigned} writes for {@code value}. */
    static int signedLength(long value) {
        return unsignedLength((value << 1) ^ (value >> 63));
    }

    /** The bytes {@link #writeUnsigned} writes for {@code value}: 7 bits a byte. */
    static int unsignedLength(long value) {
        return Math.max(1, (64 - Long.numberOfLeadingZeros(value) + 6) / 7);
    }

    /**
     * Reads what {@link #writeSigned} wrote.
     *
     * @throws IllegalArgumentException when the varint is longer than a long's
     * @throws java.nio.BufferUnderflowException when {@code in} ends within it
     */
    static long readSigned(ByteBuffer in) {
        long value = 0;
        for (int i = 0; i < MAX_BYTES; i++) {
            byte b = in.get();
            value |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                return (value >>> 1) ^ -(value & 1);
            }
        }
        throw new IllegalArgumentException("a varint longer than " + MAX_BYTES + " bytes ending at byte " + in.position());
    }
}
