package io.sluice.store.redis;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The value of a client's key in format 2, as common.lua reads and writes it: a MessagePack
 * array {2, base, then per limit: name, expiry - base, state}, where the one time of a state
 * (at the index {@link #timeAt} gives) is relative to base. Tests write states with it and
 * read them back. Only what the format uses: arrays, strings and integers.
 */
final class StoredValue {

    /** One limit's state and the instant after which it equals the fresh state. */
    record Entry(long expiresAt, long[] state) {
    }

    private StoredValue() {
    }

    /** The index of the time in a state with this tag, or -1 (as TIME_AT in common.lua). */
    static int timeAt(long tag) {
        if (tag == 1 * 256 + 1 || tag == 3 * 256 + 1 || tag == 5 * 256 + 2) {
            return 1;
        }
        return tag == 4 * 256 + 2 || tag == 2 * 256 + 129 ? 2 : -1;
    }

    static byte[] encode(Map<String, Entry> entries, long base) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeArrayHeader(out, 2 + 3 * entries.size());
        writeInteger(out, 2);
        writeInteger(out, base);
        entries.forEach((name, entry) -> {
            byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
            out.write(0xd9);
            out.write(bytes.length);
            out.write(bytes, 0, bytes.length);
            writeInteger(out, entry.expiresAt() - base);
            long[] state = entry.state();
            int at = state.length > 0 ? timeAt(state[0]) : -1;
            writeArrayHeader(out, state.length);
            for (int i = 0; i < state.length; i++) {
                writeInteger(out, i == at ? state[i] - base : state[i]);
            }
        });
        return out.toByteArray();
    }

    static Map<String, Entry> decode(byte[] value) {
        ByteBuffer in = ByteBuffer.wrap(value);
        List<Object> fields = readArray(in);
        if (!Long.valueOf(2).equals(fields.get(0))) {
            throw new IllegalArgumentException("not format 2: " + fields.get(0));
        }
        long base = (Long) fields.get(1);
        Map<String, Entry> entries = new LinkedHashMap<>();
        for (int i = 2; i < fields.size(); i += 3) {
            @SuppressWarnings("unchecked")
            List<Object> stored = (List<Object>) fields.get(i + 2);
            long[] state = new long[stored.size()];
            for (int j = 0; j < state.length; j++) {
                state[j] = (Long) stored.get(j);
            }
            int at = state.length > 0 ? timeAt(state[0]) : -1;
            if (at >= 0 && at < state.length) {
                state[at] += base;
            }
            entries.put((String) fields.get(i), new Entry(base + (Long) fields.get(i + 1), state));
        }
        return entries;
    }

    private static void writeArrayHeader(ByteArrayOutputStream out, int size) {
        if (size < 16) {
            out.write(0x90 | size);
        } else {
            out.write(0xdc);
            out.write(size >>> 8);
            out.write(size & 0xff);
        }
    }

    private static void writeInteger(ByteArrayOutputStream out, long x) {
        out.write(0xd3);
        for (int shift = 56; shift >= 0; shift -= 8) {
            out.write((int) (x >>> shift) & 0xff);
        }
    }

    private static List<Object> readArray(ByteBuffer in) {
        int type = in.get() & 0xff;
        int size;
        if ((type & 0xf0) == 0x90) {
            size = type & 0x0f;
        } else if (type == 0xdc) {
            size = in.getShort() & 0xffff;
        } else {
            throw new IllegalArgumentException("not an array: " + type);
        }
        List<Object> items = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            items.add(read(in));
        }
        return items;
    }

    private static Object read(ByteBuffer in) {
        int type = in.get(in.position()) & 0xff;
        if ((type & 0xf0) == 0x90 || type == 0xdc) {
            return readArray(in);
        }
        in.get();
        if (type < 0x80) {
            return (long) type;
        }
        if (type >= 0xe0) {
            return (long) (byte) type;
        }
        if ((type & 0xe0) == 0xa0 || type == 0xd9) {
            int length = type == 0xd9 ? in.get() & 0xff : type & 0x1f;
            byte[] bytes = new byte[length];
            in.get(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
        return switch (type) {
            case 0xcc -> (long) (in.get() & 0xff);
            case 0xcd -> (long) (in.getShort() & 0xffff);
            case 0xce -> in.getInt() & 0xffffffffL;
            case 0xcf, 0xd3 -> in.getLong();
            case 0xd0 -> (long) in.get();
            case 0xd1 -> (long) in.getShort();
            case 0xd2 -> (long) in.getInt();
            default -> throw new IllegalArgumentException("unexpected MessagePack type " + type);
        };
    }
}
