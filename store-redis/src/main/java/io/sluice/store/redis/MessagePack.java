package io.sluice.store.redis;

import java.io.ByteArrayOutputStream;

/**
 * The least of MessagePack the store writes: an array of integers, each in its shortest form,
 * as Redis's {@code cmsgpack.unpack} reads it. The limits' numbers go to the decision, lease and
 * give-back scripts as one such argument, so that Redis unpacks them in C instead of a
 * {@code tonumber} per number.
 */
final class MessagePack {

    private MessagePack() {
    }

    /** The integers as one MessagePack array. */
    static byte[] array(long... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(5 + 9 * values.length);
        int size = values.length;
        if (size < 16) {
            out.write(0x90 | size);
        } else if (size < 1 << 16) {
            out.write(0xdc);
            writeBigEndian(out, size, 2);
        } else {
            out.write(0xdd);
            writeBigEndian(out, size, 4);
        }
        for (long value : values) {
            writeInteger(out, value);
        }
        return out.toByteArray();
    }

    private static void writeInteger(ByteArrayOutputStream out, long value) {
        if (value >= 0) {
            if (value < 128) {
                out.write((int) value); // positive fixint
            } else if (value < 1 << 8) {
                out.write(0xcc);
                writeBigEndian(out, value, 1);
            } else if (value < 1 << 16) {
                out.write(0xcd);
                writeBigEndian(out, value, 2);
            } else if (value < 1L << 32) {
                out.write(0xce);
                writeBigEndian(out, value, 4);
            } else {
                out.write(0xcf);
                writeBigEndian(out, value, 8);
            }
        } else if (value >= -32) {
            out.write((int) value & 0xff); // negative fixint
        } else if (value >= Byte.MIN_VALUE) {
            out.write(0xd0);
            writeBigEndian(out, value, 1);
        } else if (value >= Short.MIN_VALUE) {
            out.write(0xd1);
            writeBigEndian(out, value, 2);
        } else if (value >= Integer.MIN_VALUE) {
            out.write(0xd2);
            writeBigEndian(out, value, 4);
        } else {
            out.write(0xd3);
            writeBigEndian(out, value, 8);
        }
    }

    private static void writeBigEndian(ByteArrayOutputStream out, long value, int bytes) {
        for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
            out.write((int) (value >>> shift) & 0xff);
        }
    }
}
