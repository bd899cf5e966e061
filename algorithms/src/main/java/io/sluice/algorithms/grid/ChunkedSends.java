package io.sluice.algorithms.grid;

import io.sluice.api.Limit;
import io.sluice.api.StoreUnavailableException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A grid store's caller side of the chunks of long sliding logs ({@link GridChunks}): sends a
 * key's decisions with the acknowledgements of the chunks written for that key since its last
 * send; writes the chunks the owner asks for, and acknowledges each once written; reads a chunk
 * the owner needs and sends the decisions it has not made yet again, with it. Answers the plain
 * replies of all the decisions, one after the other, as a batch's are.
 *
 * <p>A chunk that cannot be read (missing, or the grid failed) fails the send with a
 * {@link StoreUnavailableException}: the decision cannot be made, and nothing changed. A chunk
 * that cannot be written is counted and logged (at most once a minute) and never acknowledged:
 * the owner keeps its entries and asks again with its next admission.
 *
 * <p>The chunk a key's decision read goes with the key's next decisions, until one of them
 * admits or needs another: a denial never changes the head, so on a full log whose oldest
 * entries are in a chunk (after a burst) every denial needs that chunk for its retry time, and
 * would otherwise cost a read and a second call each. Its entries never change (a chunk's key
 * only ever has one content), so a chunk sent that the owner no longer needs is ignored there.
 *
 * <p>An acknowledgement waits for the key's next sliding-log decision; one still waiting a
 * period after its chunk's write is dropped, and so is a chunk kept a period after its read
 * (its entries have all expired by then): both swept every {@link #SWEEP_EVERY} reads and
 * writes, so a key that gets no next decision costs nothing here after that. Dropping an
 * acknowledgement changes no decision (a lost one never does: the owner keeps the chunk's
 * entries in the head and asks again), and a period after the write every entry of the chunk
 * has expired, so the owner's next admission drops them instead of asking again. Hence no call
 * of its own for an acknowledgement either: an idle key's head is bounded without it.
 */
final class ChunkedSends {

    private static final System.Logger LOGGER = System.getLogger(ChunkedSends.class.getName());
    private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** How many chunk reads and writes go between two sweeps of the acknowledgements and chunks no longer needed. */
    static final int SWEEP_EVERY = 1_024;
    private static final long[] NONE_DECIDED = {};

    private final GridStore.ChunkCalls chunks;
    /** {@link System#nanoTime()}, or a test's virtual one. */
    private final LongSupplier nanoTime;
    /** The chunks written per key, not yet acknowledged to its owner. */
    private final ConcurrentHashMap<String, Pending> acks = new ConcurrentHashMap<>();
    /** The chunk each key's last decision read, sent with its next ones until one admits or needs another. */
    private final ConcurrentHashMap<String, Kept> kept = new ConcurrentHashMap<>();
    private final AtomicLong readsAndWrites = new AtomicLong();
    private final AtomicLong failedWrites = new AtomicLong();
    private final AtomicLong nextLogNanos;

    /** Sends with {@code chunks}, at {@code nanoTime}'s time (a period's end for the acknowledgements waiting). */
    ChunkedSends(GridStore.ChunkCalls chunks, LongSupplier nanoTime) {
        this.chunks = chunks;
        this.nanoTime = nanoTime;
        this.nextLogNanos = new AtomicLong(nanoTime.getAsLong());
    }

    /**
     * Sends {@code decisions} (a decision or a batch) for {@code key} with {@code send}, and
     * completes with the replies of all of them. The decisions left undecided for want of a
     * chunk go again, with it, by {@code resend}: called on the thread that read the chunk, or
     * that received the answer, which may be a grid's thread that must not make a remote call
     * (Hazelcast's response threads refuse), so {@code resend} has to hand the call to a thread
     * of the store.
     */
    CompletableFuture<long[]> send(String key, GridOperation decisions,
                                   Function<GridOperation, CompletableFuture<long[]>> send,
                                   Function<GridOperation, CompletableFuture<long[]>> resend) {
        return send(key, decisions.decisions(), keptFor(key), NONE_DECIDED, send, resend);
    }

    /**
     * As {@link #send}, for a decision (or batch) only its caller waits for: started at once
     * with {@code startAlone} (a store's wait on its cluster's own future, see
     * {@link GridStore.StartOnOwner#startAlone}), the answer read on the waiting thread. Only
     * when the owner needs a chunk do the undecided decisions go on as {@link #send}'s do,
     * {@code resend} making their calls, and the caller waits for those too. Why: a lone
     * sliding-log decision otherwise paid a future of its own, a callback on the cluster's and
     * a composed stage per call, a few hundred bytes each decision, where a decision without
     * chunks pays none.
     */
    GridCalls.Started<long[]> startAlone(String key, GridOperation decisions,
                                         Function<GridOperation, GridCalls.Started<long[]>> startAlone,
                                         Function<GridOperation, CompletableFuture<long[]>> resend) {
        List<GridOperation> rest = decisions.decisions();
        List<GridChunks.Chunk> read = keptFor(key);
        GridCalls.Started<long[]> started = startAlone.apply(withChunks(key, rest, read));
        return timeoutNanos -> {
            long deadline = System.nanoTime() + timeoutNanos;
            CompletableFuture<long[]> decided = answered(key, rest, read, NONE_DECIDED, started.await(timeoutNanos),
                    resend);
            return decided.isDone() ? decided.get() : decided.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        };
    }

    /** The chunk {@code key}'s last decision read, to go with its next ones; none when it kept none. */
    private List<GridChunks.Chunk> keptFor(String key) {
        Kept last = kept.get(key);
        return last == null ? List.of() : List.of(last.chunk());
    }

    private CompletableFuture<long[]> send(String key, List<GridOperation> rest, List<GridChunks.Chunk> read,
                                           long[] decidedBefore,
                                           Function<GridOperation, CompletableFuture<long[]>> send,
                                           Function<GridOperation, CompletableFuture<long[]>> resend) {
        return send.apply(withChunks(key, rest, read))
                .thenCompose(answer -> answered(key, rest, read, decidedBefore, answer, resend));
    }

    /** {@code rest} (a decision or a batch's) with the acknowledgements waiting for {@code key} and the chunks {@code read}. */
    private GridOperation withChunks(String key, List<GridOperation> rest, List<GridChunks.Chunk> read) {
        Pending acknowledged = acks.remove(key);
        return GridOperation.withChunks(rest.size() == 1 ? rest.get(0) : GridOperation.batch(rest),
                acknowledged == null ? List.of() : acknowledged.acks(), read);
    }

    /**
     * The owner's {@code answer} to {@code rest}: the chunks it asks for written, and the replies
     * of all of them ({@code decidedBefore}'s first), at once when it needed no chunk, else once
     * the chunk is read and the undecided ones are sent again with it by {@code resend}.
     */
    private CompletableFuture<long[]> answered(String key, List<GridOperation> rest, List<GridChunks.Chunk> read,
                                               long[] decidedBefore, long[] answer,
                                               Function<GridOperation, CompletableFuture<long[]>> resend) {
        GridChunks.Reply reply = GridChunks.Reply.decode(answer, rest.size());
        for (GridChunks.Reply.Flush flush : reply.flushes()) {
            write(key, limitOf(rest.get(flush.decision()), flush.limit()), flush);
        }
        long[] decided = concat(decidedBefore, reply.decided());
        GridChunks.Reply.Needed needed = reply.needed();
        if (needed == null) {
            if (GridReply.admitsAny(reply.decided())) {
                kept.remove(key);
            }
            return CompletableFuture.completedFuture(decided);
        }
        Limit limit = limitOf(rest.get(needed.decision()), needed.limit());
        List<GridOperation> undecided = rest.subList(reply.decidedCount(), rest.size());
        return chunks.read(key, limit.name(), needed.birth(), needed.index()).thenCompose(entries -> {
            if (entries == null) {
                throw new StoreUnavailableException("chunk " + needed.index() + " of the sliding log of limit "
                        + limit.name() + " (made at " + needed.birth() + ") of key " + key
                        + " is missing: its member left before a backup held it?");
            }
            GridChunks.Chunk chunk = new GridChunks.Chunk(limit.name(), needed.birth(), needed.index(), entries);
            long now = nanoTime.getAsLong();
            kept.put(key, new Kept(chunk, now + TimeUnit.MICROSECONDS.toNanos(limit.periodMicros())));
            countAndSweep(now);
            List<GridChunks.Chunk> withIt = new ArrayList<>(read);
            withIt.add(chunk);
            return send(key, undecided, withIt, decided, resend, resend);
        });
    }

    /**
     * Writes a chunk the owner asked for, then acknowledges it: to live one period from its
     * write, which is enough, since the owner reads a chunk only while one of its entries is
     * live (see docs/algorithms.md) and all were made before the write.
     */
    private void write(String key, Limit limit, GridChunks.Reply.Flush flush) {
        GridChunks.Chunk chunk = new GridChunks.Chunk(limit.name(), flush.birth(), flush.index(), flush.entries());
        chunks.write(key, chunk.limit(), chunk.birth(), chunk.index(), chunk.entries(), limit.periodMicros())
                .whenComplete((written, failure) -> {
                    if (failure == null) {
                        acknowledge(key, chunk.ack(), limit.periodMicros());
                    } else {
                        failedWrite(chunk, key, failure);
                    }
                });
    }

    /** Queues {@code ack} for {@code key}'s next send, for a period. */
    private void acknowledge(String key, GridChunks.Ack ack, long periodMicros) {
        long now = nanoTime.getAsLong();
        acks.merge(key, new Pending(List.of(ack), now + TimeUnit.MICROSECONDS.toNanos(periodMicros)), Pending::and);
        countAndSweep(now);
    }

    /** Every {@link #SWEEP_EVERY} reads and writes, drops the acknowledgements and chunks whose period passed. */
    private void countAndSweep(long now) {
        if (readsAndWrites.incrementAndGet() % SWEEP_EVERY == 0) {
            acks.values().removeIf(pending -> now - pending.untilNanos() >= 0);
            kept.values().removeIf(last -> now - last.untilNanos() >= 0);
        }
    }

    /** How many keys have acknowledgements waiting for their next send, and how many keep a chunk read. */
    int keysHeld() {
        return acks.size() + kept.size();
    }

    private void failedWrite(GridChunks.Chunk chunk, String key, Throwable failure) {
        failedWrites.incrementAndGet();
        long now = System.nanoTime();
        long next = nextLogNanos.get();
        if (now - next >= 0 && nextLogNanos.compareAndSet(next, now + LOG_INTERVAL_NANOS)) {
            LOGGER.log(Level.WARNING, "writing " + chunk + " of key " + key + " failed (" + failedWrites.get()
                    + " chunk writes failed so far; logged at most once a minute); its owner keeps the entries"
                    + " and asks again", failure);
        }
    }

    /** How many chunk writes failed (each counted, the owner asked again). */
    long failedWrites() {
        return failedWrites.get();
    }

    private static Limit limitOf(GridOperation decision, int index) {
        return GridRequest.decode(decision.request()).limits().get(index);
    }

    /** The chunk a key's last decision read, kept until {@code untilNanos}: a period after its read. */
    private record Kept(GridChunks.Chunk chunk, long untilNanos) {
    }

    /** A key's acknowledgements waiting, until {@code untilNanos}: a period after the last one's write. */
    private record Pending(List<GridChunks.Ack> acks, long untilNanos) {

        Pending and(Pending later) {
            return new Pending(concat(acks, later.acks), later.untilNanos - untilNanos > 0 ? later.untilNanos : untilNanos);
        }
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        List<T> both = new ArrayList<>(first);
        both.addAll(second);
        return List.copyOf(both);
    }

    private static long[] concat(long[] first, long[] second) {
        if (first.length == 0) {
            return second;
        }
        long[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }
}
