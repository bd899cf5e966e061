package io.sluice.store.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The value of a client's key in format 2, as common.lua reads and writes it: the byte 2,
 * then per limit its name (length, bytes), its expiry and its state (length, then each
 * number zig-zag), all numbers LEB128 varints. Tests write states with it and read them back.
 */
final class StoredValue {

    /** One limit's state and the instant after which it equals the fresh state. */
    record Entry(long expiresAt, long[] state) {
    }

    private StoredValue() {
    }

    static byte[] encode(Map<String, Entry> entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(2);
        entries.forEach((name, entry) -> {
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            writeVarint(out, bytes.length);
            out.write(bytes, 0, bytes.length);
            writeVarint(out, entry.expiresAt());
            writeVarint(out, entry.state().length);
            for (long x : entry.state()) {
                writeVarint(out, x >= 0 ? 2 * x : -2 * x - 1);
            }
        });
        return out.toByteArray();
    }

    static Map<String, Entry> decode(byte[] value) {
        if (value[0] != 2) {
            throw new IllegalArgumentException("not format 2: " + value[0]);
        }
        Map<String, Entry> entries = new LinkedHashMap<>();
        int[] pos = {1};
        while (pos[0] < value.length) {
            int length = (int) readVarint(value, pos);
            String name = new String(value, pos[0], length, StandardCharsets.UTF_8);
            pos[0] += length;
            long expiresAt = readVarint(value, pos);
            long[] state = new long[(int) readVarint(value, pos)];
            for (int i = 0; i < state.length; i++) {
                long zigzag = readVarint(value, pos);
                state[i] = zigzag % 2 == 0 ? zigzag / 2 : -(zigzag + 1) / 2;
            }
            entries.put(name, new Entry(expiresAt, state));
        }
        return entries;
    }

    private static void writeVarint(ByteArrayOutputStream out, long x) {
        while (x >= 128) {
            out.write((int) (x % 128) + 128);
            x /= 128;
        }
        out.write((int) x);
    }

    private static long readVarint(byte[] value, int[] pos) {
        long result = 0;
        long multiplier = 1;
        while (true) {
            int b = value[pos[0]++] & 0xFF;
            if (b < 128) {
                return result + b * multiplier;
            }
            result += (b - 128) * multiplier;
            multiplier *= 128;
        }
    }
}
