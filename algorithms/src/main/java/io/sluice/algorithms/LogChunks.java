package io.sluice.algorithms;

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
}
