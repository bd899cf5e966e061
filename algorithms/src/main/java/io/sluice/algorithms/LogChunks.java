package io.sluice.algorithms;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The chunks of the long sliding logs of one key, as a grid store's operation sees them on the
 * key's owner ({@link KeyState#tryAcquire(java.util.List, long, long, LogChunks)}): a long log
 * is kept as a bounded head in the key's value and its older entries in chunks, keys of their
 * own that the caller writes and reads. A chunk is named by its limit, the time its log's
 * head was made ({@code birth}) and its index; its entries are {@code (time, total)} pairs,
 * totals relative to the total before the chunk. See docs/algorithms.md.
 */
public interface LogChunks {

    /** The entries of the chunk the caller read and sent with the operation; {@code null} when it sent none. */
    long @Nullable [] chunk(String limitName, long birth, long index);

    /** The operation cannot decide without this chunk: the caller reads it and sends the operation again with it. */
    void need(String limitName, long birth, long index);

    /**
     * Asks the caller to write this chunk, then to acknowledge it
     * ({@link KeyState#acked(String, long, long, long)}); asked again by every admission until then.
     */
    void flush(String limitName, long birth, long index, long[] entries);

    /** The bytes {@link #putEntries} writes for {@code entries}. */
    static int entriesLength(long[] entries) {
        int bytes = 0;
        for (int i = 0; i < entries.length; i++) {
            bytes += Varints.signedLength(entries[i] - before(entries, i));
        }
        return bytes;
    }

    /**
     * Writes a chunk's entries as a grid request carries them: each time and each total as the
     * zig-zag variable-length integer of its difference from the entry before's (the first
     * entry's as they are). A chunk's entries grow, usually by a few microseconds and units,
     * so they take a byte or two each instead of 8: about 150 bytes for 64 entries, not 1,024.
     */
    static void putEntries(ByteBuffer out, long[] entries) {
        for (int i = 0; i < entries.length; i++) {
            Varints.writeSigned(out, entries[i] - before(entries, i));
        }
    }

    /**
     * Reads the {@code longs} longs that {@link #putEntries} wrote.
     *
     * @throws IllegalArgumentException when a number is longer than a long's
     * @throws java.nio.BufferUnderflowException when {@code in} ends before them
     */
    static long[] getEntries(ByteBuffer in, int longs) {
        long[] entries = new long[longs];
        for (int i = 0; i < longs; i++) {
            entries[i] = before(entries, i) + Varints.readSigned(in);
        }
        return entries;
    }

    /** What the long at {@code i} of a chunk's entries is written relative to: the entry before's time or total, 0 for the first's. */
    private static long before(long[] entries, int i) {
        return i < 2 ? 0 : entries[i - 2];
    }
}
