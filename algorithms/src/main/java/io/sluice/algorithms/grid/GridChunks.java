package io.sluice.algorithms.grid;

import io.sluice.algorithms.KeyState;
import io.sluice.algorithms.LogChunks;
import io.sluice.api.Limit;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The chunks of long sliding logs on the wire ({@link LogChunks}, see docs/algorithms.md): what a
 * caller that handles chunks sends with a decision or a batch ({@link #CHUNKED_FORMAT}: the
 * acknowledgements of chunks it wrote and the chunks it read), and what the owner answers
 * ({@link Reply}: the decisions made, the chunk it needs for the next one, the chunks to write).
 *
 * <p>A request is {@link #CHUNKED_FORMAT}, the number of acknowledgements, each as
 * {@code (limit, birth, index, first time)}, the number of chunks, each as
 * {@code (limit, birth, index, number of longs, longs)}, the longs as
 * {@link LogChunks#putEntries} writes them (a byte or two each), then the decision's or batch's
 * own bytes (last, so that {@link GridRequest#usesMemberClock(byte[])} reads them as it reads a
 * plain one). A member of an earlier version refuses the format as one it does not know, so a
 * caller that handles chunks never makes an earlier member decide on a head it cannot read (nor
 * one of format 3, which carried a chunk's longs 8 bytes each, read compact chunks as those).
 */
final class GridChunks {

    /**
     * The first byte of a request whose caller handles chunks. 3 carried a chunk's longs 8
     * bytes each: a chunk kept with a key's denials made a denial's request 1 KB longer.
     */
    static final byte CHUNKED_FORMAT = 4;

    /** A chunk the caller wrote, acknowledged to the owner ({@link KeyState#acked}). */
    record Ack(String limit, long birth, long index, long firstTime) {

        Ack {
            Objects.requireNonNull(limit, "limit");
        }
    }

    /** A chunk the caller read (or is asked to write): its limit, its log's birth, its index and its entries. */
    record Chunk(String limit, long birth, long index, long[] entries) {

        Chunk {
            Objects.requireNonNull(limit, "limit");
            Objects.requireNonNull(entries, "entries");
        }

        /** The acknowledgement of this chunk once written: its first entry's time. */
        Ack ack() {
            return new Ack(limit, birth, index, entries[0]);
        }

        boolean names(String otherLimit, long otherBirth, long otherIndex) {
            return limit.equals(otherLimit) && birth == otherBirth && index == otherIndex;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Chunk other && names(other.limit, other.birth, other.index)
                    && Arrays.equals(entries, other.entries);
        }

        @Override
        public int hashCode() {
            return Objects.hash(limit, birth, index, Arrays.hashCode(entries));
        }

        @Override
        public String toString() {
            return "Chunk[" + limit + ", birth " + birth + ", index " + index + ", " + entries.length / 2 + " entries]";
        }
    }

    private GridChunks() {
    }

    /** {@code operation} (a decision or a batch) with the acknowledgements and chunks a caller that handles chunks sends. */
    static byte[] encode(byte[] operation, List<Ack> acks, List<Chunk> chunks) {
        // Indexed loops, here and below: an iterator over a list is an object per loop, 32 bytes
        // each on every sliding-log decision.
        int bytes = 1 + 2 * Integer.BYTES + operation.length;
        for (int i = 0; i < acks.size(); i++) {
            bytes += nameBytes(acks.get(i).limit()) + 3 * Long.BYTES;
        }
        for (int i = 0; i < chunks.size(); i++) {
            Chunk chunk = chunks.get(i);
            bytes += nameBytes(chunk.limit()) + 2 * Long.BYTES + Integer.BYTES + LogChunks.entriesLength(chunk.entries());
        }
        ByteBuffer out = ByteBuffer.allocate(bytes).put(CHUNKED_FORMAT).putInt(acks.size());
        for (int i = 0; i < acks.size(); i++) {
            Ack ack = acks.get(i);
            putName(out, ack.limit());
            out.putLong(ack.birth()).putLong(ack.index()).putLong(ack.firstTime());
        }
        out.putInt(chunks.size());
        for (int i = 0; i < chunks.size(); i++) {
            Chunk chunk = chunks.get(i);
            putName(out, chunk.limit());
            out.putLong(chunk.birth()).putLong(chunk.index()).putInt(chunk.entries().length);
            LogChunks.putEntries(out, chunk.entries());
        }
        return out.put(operation).array();
    }

    /** What {@link #encode} wrote, read on the owner. */
    record Request(List<Ack> acks, List<Chunk> chunks, byte[] operation) {

        /**
         * Reads {@code request}.
         *
         * @throws IllegalArgumentException when it is not {@link #CHUNKED_FORMAT}'s or is truncated
         */
        static Request decode(byte[] request) {
            if (request.length == 0 || request[0] != CHUNKED_FORMAT) {
                throw new IllegalArgumentException("not a request with chunks: format "
                        + (request.length == 0 ? "none" : String.valueOf(request[0])));
            }
            try {
                ByteBuffer in = ByteBuffer.wrap(request, 1, request.length - 1);
                int ackCount = count(in, "acknowledgements");
                List<Ack> acks = ackCount == 0 ? List.of() : new ArrayList<>(ackCount);
                for (int i = 0; i < ackCount; i++) {
                    acks.add(new Ack(name(in), in.getLong(), in.getLong(), in.getLong()));
                }
                int chunkCount = count(in, "chunks");
                List<Chunk> chunks = chunkCount == 0 ? List.of() : new ArrayList<>(chunkCount);
                for (int i = 0; i < chunkCount; i++) {
                    String limit = name(in);
                    long birth = in.getLong();
                    long index = in.getLong();
                    int longs = count(in, "longs of a chunk");
                    if (longs < 2 || longs % 2 != 0 || longs > in.remaining()) {
                        throw new IllegalArgumentException("a chunk of " + longs + " longs in a request of "
                                + request.length + " bytes");
                    }
                    chunks.add(new Chunk(limit, birth, index, LogChunks.getEntries(in, longs)));
                }
                if (!in.hasRemaining() || request[in.position()] == CHUNKED_FORMAT) {
                    throw new IllegalArgumentException("a request with chunks holds no decision of its own");
                }
                return new Request(List.copyOf(acks), List.copyOf(chunks),
                        Arrays.copyOfRange(request, in.position(), request.length));
            } catch (BufferUnderflowException e) {
                throw new IllegalArgumentException("a request with chunks of " + request.length
                        + " bytes is truncated", e);
            }
        }

        /** The chunk of {@code limit}'s log born at {@code birth} numbered {@code index} that the caller sent; {@code null} when none. */
        long @Nullable [] chunk(String limit, long birth, long index) {
            for (int i = 0; i < chunks.size(); i++) {
                Chunk chunk = chunks.get(i);
                if (chunk.names(limit, birth, index)) {
                    return chunk.entries();
                }
            }
            return null;
        }

        /** Applies the acknowledgements to {@code state}; whether it changed (so it must be written). */
        boolean acknowledge(KeyState state) {
            boolean changed = false;
            for (int i = 0; i < acks.size(); i++) {
                Ack ack = acks.get(i);
                changed |= state.acked(ack.limit(), ack.birth(), ack.index(), ack.firstTime());
            }
            return changed;
        }
    }

    /**
     * What the owner answers a request with chunks: the replies of the decisions it made, in
     * order ({@link GridReply#LENGTH} longs each); the chunk it needs to make the next one
     * ({@code null} when it made them all); and the chunks it asks the caller to write. On the
     * wire: the number decided, their replies, the needed chunk's decision (-1 when none), limit
     * index, birth and index, the number of chunks to write, each as its decision, limit index,
     * birth, index, number of longs and longs. Limits are named by their index in their own
     * decision's limits, which the caller holds.
     */
    record Reply(long[] decided, @Nullable Needed needed, List<Flush> flushes) {

        /** The chunk the owner needs: in the limits of decision {@code decision}, limit {@code limit}. */
        record Needed(int decision, int limit, long birth, long index) {
        }

        /** A chunk to write, of limit {@code limit} in the limits of decision {@code decision}. */
        record Flush(int decision, int limit, long birth, long index, long[] entries) {
        }

        /** How many decisions the owner made. */
        int decidedCount() {
            return decided.length / GridReply.LENGTH;
        }

        long[] encode() {
            return encode(decided, needed, flushes);
        }

        /** What {@link #encode()} writes for such a reply, built or not. */
        static long[] encode(long[] decided, @Nullable Needed needed, List<Flush> flushes) {
            int longs = 1 + decided.length + 4 + 1;
            for (int i = 0; i < flushes.size(); i++) {
                longs += 5 + flushes.get(i).entries().length;
            }
            long[] out = new long[longs];
            int at = 0;
            out[at++] = decided.length / GridReply.LENGTH;
            System.arraycopy(decided, 0, out, at, decided.length);
            at += decided.length;
            Needed need = needed;
            out[at++] = need == null ? -1 : need.decision();
            out[at++] = need == null ? 0 : need.limit();
            out[at++] = need == null ? 0 : need.birth();
            out[at++] = need == null ? 0 : need.index();
            out[at++] = flushes.size();
            for (int i = 0; i < flushes.size(); i++) {
                Flush flush = flushes.get(i);
                out[at++] = flush.decision();
                out[at++] = flush.limit();
                out[at++] = flush.birth();
                out[at++] = flush.index();
                out[at++] = flush.entries().length;
                System.arraycopy(flush.entries(), 0, out, at, flush.entries().length);
                at += flush.entries().length;
            }
            return out;
        }

        /**
         * Reads what {@link #encode} wrote, for a request of {@code decisions} decisions.
         *
         * @throws IllegalArgumentException when it is not such a reply
         */
        static Reply decode(long[] reply, int decisions) {
            try {
                int at = 0;
                long count = reply[at++];
                if (count < 0 || count > decisions) {
                    throw new IllegalArgumentException("a reply of " + count + " decisions to " + decisions);
                }
                long[] decided = Arrays.copyOfRange(reply, at, at + (int) count * GridReply.LENGTH);
                at += decided.length;
                long needDecision = reply[at++];
                Needed needed = needDecision < 0 ? null
                        : new Needed((int) needDecision, (int) reply[at], reply[at + 1], reply[at + 2]);
                at += 3;
                if ((needed == null) != (count == decisions)) {
                    throw new IllegalArgumentException("a reply of " + count + " decisions to " + decisions
                            + (needed == null ? " needs no chunk" : " needs a chunk"));
                }
                long flushCount = reply[at++];
                List<Flush> flushes = new ArrayList<>();
                for (long i = 0; i < flushCount; i++) {
                    int decision = (int) reply[at++];
                    int limit = (int) reply[at++];
                    long birth = reply[at++];
                    long index = reply[at++];
                    int longs = (int) reply[at++];
                    flushes.add(new Flush(decision, limit, birth, index, Arrays.copyOfRange(reply, at, at + longs)));
                    at += longs;
                }
                if (at != reply.length) {
                    throw new IllegalArgumentException("a reply with chunks has " + (reply.length - at)
                            + " trailing longs");
                }
                return new Reply(decided, needed, flushes.isEmpty() ? List.of() : List.copyOf(flushes));
            } catch (ArrayIndexOutOfBoundsException | NegativeArraySizeException e) {
                throw new IllegalArgumentException("a reply with chunks of " + reply.length + " longs is truncated", e);
            }
        }
    }

    /**
     * The {@link LogChunks} of one operation on the owner: the chunks its request sent, and the
     * need and flushes of the decision being made ({@link #decision}), named by their index in
     * that decision's limits. A flush asked again by a later admission is kept once.
     */
    static final class OnOwner implements LogChunks {

        private final Request request;
        private final List<Reply.Flush> flushes = new ArrayList<>();
        /** The limit's name of each of {@link #flushes}, in order: a flush names its limit by index. */
        private final List<String> flushNames = new ArrayList<>();
        private List<Limit> limits = List.of();
        private int decision;
        private Reply.@Nullable Needed needed;

        OnOwner(Request request) {
            this.request = request;
        }

        /** The decision being made next: the {@code index}-th, against {@code decisionLimits}. */
        void decision(int index, List<Limit> decisionLimits) {
            this.decision = index;
            this.limits = decisionLimits;
        }

        @Override
        public long @Nullable [] chunk(String limitName, long birth, long index) {
            return request.chunk(limitName, birth, index);
        }

        @Override
        public void need(String limitName, long birth, long index) {
            needed = new Reply.Needed(decision, indexOf(limitName), birth, index);
        }

        @Override
        public void flush(String limitName, long birth, long index, long[] entries) {
            for (int i = 0; i < flushes.size(); i++) {
                Reply.Flush asked = flushes.get(i);
                if (asked.birth() == birth && asked.index() == index && flushNames.get(i).equals(limitName)) {
                    return;
                }
            }
            flushes.add(new Reply.Flush(decision, indexOf(limitName), birth, index, entries));
            flushNames.add(limitName);
        }

        /** The reply of the decisions made, {@code decided}, encoded ({@link Reply#encode()}). */
        long[] encodedReply(long[] decided) {
            return Reply.encode(decided, needed, flushes);
        }

        private int indexOf(String limitName) {
            for (int i = 0; i < limits.size(); i++) {
                if (limits.get(i).name().equals(limitName)) {
                    return i;
                }
            }
            throw new IllegalStateException("limit " + limitName + " is not among " + limits);
        }
    }

    private static int nameBytes(String name) {
        return Integer.BYTES + name.getBytes(StandardCharsets.UTF_8).length;
    }

    private static void putName(ByteBuffer out, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        out.putInt(bytes.length).put(bytes);
    }

    private static String name(ByteBuffer in) {
        int length = count(in, "bytes of a limit's name");
        if (length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static int count(ByteBuffer in, String what) {
        int count = in.getInt();
        if (count < 0 || count > in.remaining() + 1) {
            throw new IllegalArgumentException("a request with chunks cannot hold " + count + " " + what);
        }
        return count;
    }
}
