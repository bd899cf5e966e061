package io.sluice.algorithms.grid;

import io.sluice.api.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Decisions waited for on the caller's thread, coalesced per key: while a call for a key is
 * out from this JVM, later decisions on that key wait; when it ends, they go to the owner
 * together as one {@linkplain GridOperation#batch batch}, decided there in the order they
 * came, one round trip for all of them. A decision on a key with no call out goes at once,
 * alone, as it would without this class.
 *
 * <p>Why: on a hot key every caller's call otherwise makes its own round trip and its own
 * invocation on both members, and on the owner they queue on the key's partition anyway, one
 * after the other. Decided in one operation, they cost the owner one invocation, and a caller
 * waits at most for the call out before its own goes.
 *
 * <p>The next batch gathers the decisions of the answered one: when a call's answer wakes its
 * decisions, the batch waiting for it does not go at once but when as many decisions have
 * joined it as waited in it and were woken by the answer, or when the gather time has passed
 * since the answer, whichever comes first. A batch sent at once would leave before the woken
 * decisions come back, which then wait for it as the next batch: two batches taking turns,
 * each about half the callers (measured: 4 decisions per round trip at 8 threads, bound by the
 * round trip). Gathered, a key's callers go as one batch per round trip. A decision that comes
 * when no call is out and no batch gathers (every decision on a key that is not hot) still
 * goes at once, alone; a call that failed or timed out is not gathered for.
 *
 * <p>Who ends a gather and sends the batch depends on where the {@link Sender} starts its calls.
 * One that starts them on the caller's thread (a Hazelcast member) has the callers do it: the
 * decision that fills the batch, or its first waiter once the gather time has passed. One that
 * hands them to the sending thread of {@link GridCalls} ({@link Sender#startsOnSendingThread}:
 * Ignite, whose {@code invokeAsync} must not run on a caller's thread) gets the gather itself
 * on that thread when it begins: the thread wakes while the callers come back, watches the batch
 * fill, and sends it on the spot (measured with the callers ending it: 29 us from the caller that
 * sealed a batch to the sending thread running its send, of a 330 us cycle). It gives the gather
 * back to the callers whenever other sends wait for it, so a gather never holds another key's call.
 *
 * <p>Each decision keeps its own timeout, counted from its own start: one that times out
 * before its batch went is taken out of it, so it is never sent and charges nothing (as a
 * call of {@link GridCalls} waiting for a thread); once sent, it fails or times out as the
 * batch's call does. A call is over for the key when its first waiter stops waiting (its
 * answer, its failure or its timeout), so a call that never answers holds the next batch at
 * most until the first of its waiters times out.
 */
final class SameKeyDecisions {

    /**
     * How long after an answer the next batch waits at most for the decisions it woke: about
     * the time a woken caller takes to come back on a busy two-core machine (18 to 73 us on
     * average there), and a small part of a batch's round trip (90 to 470 us there).
     */
    static final Duration GATHER = Duration.ofNanos(50_000);

    /**
     * Starts an operation on a key's owner without blocking. Its future completes on the thread
     * that receives the answer, and so do the stages chained to it without an executor: a
     * batch's decisions are woken by that thread, once each.
     */
    @FunctionalInterface
    interface Sender {

        CompletableFuture<long[]> start(String key, GridOperation operation);

        /**
         * Starts a lone decision's operation, which only its caller waits for: by default
         * {@link #start}'s future. A store may wait for its cluster's own future instead and read
         * the answer on the caller's thread, without a callback on the receiving thread.
         */
        default GridCalls.Started<long[]> startAlone(String key, GridOperation operation) {
            return GridCalls.Started.of(start(key, operation));
        }

        /**
         * Whether {@link #start} hands the operation to the sending thread of the decisions'
         * {@link GridCalls} ({@link GridCalls#send}) rather than starting it on the caller's: that
         * thread then also ends a batch's gather and sends it. By default not.
         */
        default boolean startsOnSendingThread() {
            return false;
        }
    }

    private final GridCalls calls;
    private final Sender sender;
    private final long gatherNanos;
    /** The sending thread ends the gathers ({@link Sender#startsOnSendingThread}). */
    private final boolean senderGathers;
    /**
     * The keys with a call out or a batch gathering, each with the decisions waiting; a key
     * without is removed.
     */
    private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();
    /**
     * Each thread's last answered batch, so that its next decision on that key, finding no line
     * (nothing waited for that batch), gathers the others woken with it rather than going alone
     * and leaving them to wait for it: the key's line is gone meanwhile, so it cannot hold this.
     */
    private final ThreadLocal<Rejoin> rejoins = ThreadLocal.withInitial(Rejoin::new);

    /** Decisions made with {@code calls}, sent by {@code sender}, gathered for at most {@code gather}. */
    SameKeyDecisions(GridCalls calls, Sender sender, Duration gather) {
        this.calls = calls;
        this.sender = sender;
        this.gatherNanos = GridChecks.positive("gather", gather).toNanos();
        this.senderGathers = sender.startsOnSendingThread();
    }

    /**
     * {@code decision}'s reply from the owner of {@code key}, waiting at most the timeout of
     * {@code calls} from now.
     *
     * @throws StoreUnavailableException as {@link GridCalls#failed} says, or when the store is closed
     */
    long[] decide(String key, GridOperation decision) {
        long deadline = calls.deadline();
        Line fresh = new Line(key);
        while (true) {
            Line line = lines.putIfAbsent(key, fresh);
            if (line == null) {
                Rejoin rejoin = rejoins.get();
                if (!rejoin.consume(key)) {
                    return alone(fresh, decision, deadline);
                }
                Waiter waiter = new Waiter(decision, Thread.currentThread());
                return replyIn(key, fresh, gatherOn(fresh, waiter, rejoin), waiter, deadline);
            }
            Waiter waiter = new Waiter(decision, Thread.currentThread());
            Batch batch = join(line, waiter);
            if (batch != null) {
                return replyIn(key, line, batch, waiter, deadline);
            }
            // Removed after this thread found it: the key has a new line, or none yet.
        }
    }

    /**
     * {@code waiter}'s reply from {@code batch}'s call, waiting at most until {@code deadline}; a
     * thread back from a batch of several remembers it ({@link #rejoins}).
     */
    private long[] replyIn(String key, Line line, Batch batch, Waiter waiter, long deadline) {
        boolean answered = false;
        try {
            try {
                long[] reply = batch.replyOf(waiter, await(line, batch, waiter, deadline));
                answered = true;
                if (batch.waiters.size() > 1) {
                    rejoins.get().remember(key, batch.waiters.size(), System.nanoTime() + gatherNanos);
                }
                return reply;
            } finally {
                end(line, batch, answered);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw calls.failed(e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw calls.failed(e);
        }
    }

    /**
     * The batch {@code waiter} joined on {@code line}, sealed if that made it full or its gather
     * time had passed, and then sent by this thread unless the sending thread gathers it;
     * {@code null} when the line was removed meanwhile.
     */
    private @Nullable Batch join(Line line, Waiter waiter) {
        Batch next;
        boolean sends = false;
        synchronized (line) {
            if (line.over) {
                return null;
            }
            next = line.next;
            if (next == null) {
                next = new Batch();
                line.next = next;
            }
            next.waiters.add(waiter);
            if (next.gathering
                    && (next.waiters.size() >= next.gatherCount || System.nanoTime() - next.gatherEnd >= 0)) {
                line.seal(next);
                // Else the sending thread that gathers sees it sealed and sends it.
                sends = !next.senderGathers;
            }
        }
        if (sends) {
            send(line, next);
        }
        return next;
    }

    /**
     * The batch of a decision back from an answered batch that nobody waited for, on the new
     * {@code line} it put in {@link #lines}: it gathers the others woken with it, as
     * {@code rejoin} says, rather than going alone; sent by this thread if that is all of them.
     */
    private Batch gatherOn(Line line, Waiter waiter, Rejoin rejoin) {
        Batch next;
        boolean full;
        @Nullable Thread gatekeeper = null;
        synchronized (line) {
            next = line.gather(rejoin.count, rejoin.end);
            next.waiters.add(waiter);
            full = next.waiters.size() >= next.gatherCount;
            if (full) {
                line.seal(next);
            } else {
                next.senderGathers = senderGathers;
                if (!senderGathers && next.waiters.get(0) != waiter) {
                    // One joined before this line gathered; it sleeps until its own deadline.
                    gatekeeper = next.waiters.get(0).thread;
                }
            }
        }
        if (gatekeeper != null) {
            LockSupport.unpark(gatekeeper);
        }
        if (full) {
            send(line, next);
        } else if (senderGathers) {
            handGather(line, next);
        }
        return next;
    }

    /**
     * The decision of a caller that found no call out for its key and put {@code line} in
     * {@link #lines}: it goes at once, alone. No lock is taken until it ends and no batch is
     * built, since no other decision could join {@code line} before it was in the map: a lone
     * decision (every decision on a key that is not hot) costs a map entry and one lock.
     */
    private long[] alone(Line line, GridOperation decision, long deadline) {
        boolean answered = false;
        try {
            try {
                long[] reply = sender.startAlone(line.key, decision).await(deadline - System.nanoTime());
                answered = true;
                return reply;
            } finally {
                end(line, Line.ALONE, answered);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw calls.failed(e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw calls.failed(e);
        }
    }

    /**
     * The answer of {@code batch}'s call, waiting at most until {@code deadline}; the batch sent
     * by this thread if it is the first waiter of a gathering batch whose gather time passed.
     * A waiter that gives up before its batch went is taken out of it.
     */
    private long[] await(Line line, Batch batch, Waiter waiter, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        while (!batch.done) {
            long now = System.nanoTime();
            if (now - deadline >= 0) {
                withdraw(line, batch, waiter);
                throw new TimeoutException();
            }
            long wake = deadline;
            boolean gatherEnded = false;
            if (!batch.sealed) {
                synchronized (line) {
                    if (!batch.sealed && batch.gathering && !batch.senderGathers && batch.waiters.get(0) == waiter) {
                        // The first waiter of a gathering batch ends its gather; the others wait for the answer.
                        gatherEnded = now - batch.gatherEnd >= 0;
                        if (gatherEnded) {
                            line.seal(batch);
                        } else if (batch.gatherEnd - deadline < 0) {
                            wake = batch.gatherEnd;
                        }
                    }
                }
            }
            if (gatherEnded) {
                send(line, batch);
            } else {
                LockSupport.parkNanos(this, wake - now);
                if (Thread.interrupted()) {
                    withdraw(line, batch, waiter);
                    throw new InterruptedException();
                }
            }
        }
        return batch.reply();
    }

    /**
     * Takes {@code waiter} out of {@code batch} if the batch has not gone: it charges nothing. A
     * gathering batch left with others goes now (its first waiter may be the one leaving); one
     * left empty ends its key's line.
     */
    private void withdraw(Line line, Batch batch, Waiter waiter) {
        synchronized (line) {
            if (batch.sealed) {
                return;
            }
            batch.waiters.remove(waiter);
            if (!batch.gathering) {
                return;
            }
            if (batch.waiters.isEmpty()) {
                line.next = null;
                line.close(lines);
                return;
            }
            line.seal(batch);
            if (batch.senderGathers) {
                // The sending thread that gathers sees it sealed and sends it.
                return;
            }
        }
        send(line, batch);
    }

    /**
     * Called once by each decision of {@code batch} when it stops waiting: ends the batch's call
     * for its key, if it is still the one out, and has the batch waiting for it gather the
     * decisions the answer woke, or sends it at once when the call failed.
     */
    private void end(Line line, Batch batch, boolean answered) {
        @Nullable Thread gatekeeper = null;
        @Nullable Batch toSend = null;
        @Nullable Batch gathered = null;
        synchronized (line) {
            if (line.out != batch) {
                return;
            }
            line.out = null;
            Batch next = line.next;
            if (next == null || next.waiters.isEmpty()) {
                // Nobody waits: the key's next decision finds no line (those woken here rejoin by their own memory).
                line.next = null;
                line.close(lines);
            } else if (answered) {
                int woken = batch == Line.ALONE ? 1 : batch.waiters.size();
                next.gathering = true;
                next.gatherCount = next.waiters.size() + woken;
                next.gatherEnd = System.nanoTime() + gatherNanos;
                next.senderGathers = senderGathers;
                if (senderGathers) {
                    gathered = next;
                } else {
                    // It sleeps until its own deadline: woken, it keeps the gather's time.
                    gatekeeper = next.waiters.get(0).thread;
                }
            } else {
                line.seal(next);
                toSend = next;
            }
        }
        if (gatekeeper != null) {
            LockSupport.unpark(gatekeeper);
        }
        if (toSend != null) {
            send(line, toSend);
        }
        if (gathered != null) {
            handGather(line, gathered);
        }
    }

    /**
     * Hands the gather {@code batch} just began to the sending thread ({@link #sendGathered}), or
     * gives it back to the callers when that thread cannot take it (the store closed, too many
     * calls waiting).
     */
    private void handGather(Line line, Batch batch) {
        if (!calls.onSendingThread(() -> sendGathered(line, batch))) {
            giveBack(line, batch);
        }
    }

    /**
     * On the sending thread: waits for {@code batch} to be sealed by the decision that filled it
     * (or a withdrawal), or for its gather time to pass, and sends it from this thread. It
     * yields rather than parks while it waits, so that no caller has to wake it (a thread woken
     * on a busy two-core machine ran 29 us later), and stops waiting as soon as other sends
     * wait for this thread, giving the gather back to the callers.
     */
    private void sendGathered(Line line, Batch batch) {
        while (!batch.sealed && System.nanoTime() - batch.gatherEnd < 0 && !calls.sendsWait()) {
            // At most the gather time (50 us); the callers coming back run first on a busy core.
            Thread.yield();
        }
        boolean sealed;
        synchronized (line) {
            if (!batch.sealed && !batch.waiters.isEmpty() && System.nanoTime() - batch.gatherEnd >= 0) {
                line.seal(batch);
            }
            sealed = batch.sealed;
        }
        if (sealed) {
            send(line, batch);
        } else {
            giveBack(line, batch);
        }
    }

    /**
     * Gives {@code batch}'s gather back to its callers: its first waiter ends it, or this thread
     * sends it when it was sealed meanwhile; nothing when every waiter gave up.
     */
    private void giveBack(Line line, Batch batch) {
        @Nullable Thread gatekeeper = null;
        boolean sealed;
        synchronized (line) {
            batch.senderGathers = false;
            sealed = batch.sealed;
            if (!sealed && !batch.waiters.isEmpty()) {
                gatekeeper = batch.waiters.get(0).thread;
            }
        }
        if (sealed) {
            send(line, batch);
        } else if (gatekeeper != null) {
            LockSupport.unpark(gatekeeper);
        }
    }

    /**
     * Sends {@code batch}, sealed and out for its key; a send that fails at once fails the
     * batch, whose first waiter to stop waiting then ends it.
     */
    private void send(Line line, Batch batch) {
        try {
            sender.start(line.key, batch.operation()).whenComplete(batch::complete);
        } catch (RuntimeException | Error e) {
            batch.complete(null, e);
        }
    }

    /**
     * One key's calls: the one out and the batch that waits for it or gathers; guarded by its
     * own lock. A line in {@link #lines} has a call out, or a gathering batch and none out.
     */
    private static final class Line {

        /**
         * {@link #out} of a new line: the call of the lone decision that made it, sent as it is.
         * Only compared by identity, never sent or changed: each line has it once, first.
         */
        static final Batch ALONE = new Batch();

        final String key;
        /** The call out, if any. */
        @Nullable Batch out = ALONE;
        @Nullable Batch next;
        /** Removed from {@link #lines}: a decision that finds it takes the key's new line. */
        boolean over;

        Line(String key) {
            this.key = key;
        }

        /**
         * Makes this new line, just put in the map by a decision back from an answered batch, one
         * with no call out whose next batch gathers until it has {@code count} decisions or
         * {@link System#nanoTime()} passes {@code end}; others may have joined it already.
         */
        Batch gather(int count, long end) {
            out = null;
            Batch batch = next;
            if (batch == null) {
                batch = new Batch();
                next = batch;
            }
            batch.gathering = true;
            batch.gatherCount = count;
            batch.gatherEnd = end;
            return batch;
        }

        /** {@code batch} (the next) becomes the call out: nothing joins or leaves it any more. */
        void seal(Batch batch) {
            out = batch;
            next = null;
            batch.sealed = true;
        }

        /** Removes this line, which has no call out and nothing waiting, from {@code lines}. */
        void close(ConcurrentHashMap<String, Line> lines) {
            over = true;
            lines.remove(key, this);
        }
    }

    /**
     * Decisions sent as one call; {@link #waiters} and the gather's fields change only until it
     * is sealed, under its line's lock; its answer is written once by the thread that receives it.
     */
    private static final class Batch {

        final List<Waiter> waiters = new ArrayList<>(4);
        volatile boolean sealed;
        /** Waits for the decisions an answer woke rather than for a call out. */
        boolean gathering;
        /** Its gather is ended, and the batch sent, by the sending thread ({@link #sendGathered}), not a caller. */
        boolean senderGathers;
        /** Goes once it has this many waiters, */
        int gatherCount;
        /** or once {@link System#nanoTime()} has passed this. */
        long gatherEnd;
        private long @Nullable [] reply;
        private @Nullable Throwable failure;
        /** Written after {@link #reply} and {@link #failure}. */
        volatile boolean done;

        /** The operation to send: a single decision alone, as it is sent without coalescing. */
        GridOperation operation() {
            if (waiters.size() == 1) {
                return waiters.get(0).decision;
            }
            List<GridOperation> decisions = new ArrayList<>(waiters.size());
            for (Waiter waiter : waiters) {
                decisions.add(waiter.decision);
            }
            return GridOperation.batch(decisions);
        }

        /** Ends the batch's call with its reply or failure and wakes every waiter; the batch is sealed. */
        void complete(long @Nullable [] answer, @Nullable Throwable cause) {
            reply = answer;
            failure = cause;
            done = true;
            for (Waiter waiter : waiters) {
                LockSupport.unpark(waiter.thread);
            }
        }

        /** The call's reply, once {@link #done}. */
        long[] reply() throws ExecutionException {
            long[] answer = reply;
            if (answer == null) {
                throw new ExecutionException(failure);
            }
            return answer;
        }

        /** {@code waiter}'s part of the call's {@code reply}; the batch is sealed. */
        long[] replyOf(Waiter waiter, long[] reply) {
            int count = waiters.size();
            if (count == 1) {
                return reply;
            }
            if (reply.length != count * GridReply.LENGTH) {
                throw new IllegalArgumentException("a reply of " + reply.length + " longs to a batch of "
                        + count + " decisions");
            }
            int slot = waiters.indexOf(waiter);
            return Arrays.copyOfRange(reply, slot * GridReply.LENGTH, (slot + 1) * GridReply.LENGTH);
        }
    }

    /** One decision and the thread that waits for it; compared by identity. */
    private static final class Waiter {

        final GridOperation decision;
        final Thread thread;

        Waiter(GridOperation decision, Thread thread) {
            this.decision = decision;
            this.thread = thread;
        }
    }

    /** A thread's last answered batch of several decisions: its key, its size, and when the gather for it ends. */
    private static final class Rejoin {

        private @Nullable String key;
        private int count;
        private long end;

        void remember(String batchKey, int batchCount, long gatherEnd) {
            key = batchKey;
            count = batchCount;
            end = gatherEnd;
        }

        /** Whether a decision on {@code decided}, finding no line, gathers: forgets the batch either way. */
        boolean consume(String decided) {
            boolean gathers = decided.equals(key) && System.nanoTime() - end < 0;
            key = null;
            return gathers;
        }
    }
}
