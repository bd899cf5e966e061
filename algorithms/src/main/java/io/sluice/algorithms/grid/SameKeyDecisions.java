package io.sluice.algorithms.grid;

import io.sluice.api.StoreUnavailableException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * <p>Each decision keeps its own timeout, counted from its own start: one that times out
 * before its batch went is taken out of it, so it is never sent and charges nothing (as a
 * call of {@link GridCalls} waiting for a thread); once sent, it fails or times out as the
 * batch's call does. A call is over for the key when its first waiter stops waiting (its
 * answer, its failure or its timeout), so a call that never answers holds the next batch at
 * most until the first of its waiters times out.
 */
final class SameKeyDecisions {

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
    }

    private final GridCalls calls;
    private final Sender sender;
    /** The keys with a call out, each with the decisions waiting for it to end; a key without is removed. */
    private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();

    SameKeyDecisions(GridCalls calls, Sender sender) {
        this.calls = calls;
        this.sender = sender;
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
                return alone(fresh, decision, deadline);
            }
            Waiter waiter = new Waiter(decision);
            Batch batch;
            synchronized (line) {
                if (line.over) {
                    // Removed after this thread found it: the key has a new line, or none yet.
                    continue;
                }
                if (line.next == null) {
                    line.next = new Batch();
                }
                batch = line.next;
                batch.waiters.add(waiter);
            }
            try {
                try {
                    return batch.replyOf(waiter, awaitBatch(line, batch, waiter, deadline));
                } finally {
                    end(line, batch);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw calls.failed(e);
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                throw calls.failed(e);
            }
        }
    }

    /**
     * The decision of a caller that found no call out for its key and put {@code line} in
     * {@link #lines}: it goes at once, alone. No lock is taken until it ends and no batch is
     * built, since no other decision could join {@code line} before it was in the map: a lone
     * decision (every decision on a key that is not hot) costs a map entry and one lock.
     */
    private long[] alone(Line line, GridOperation decision, long deadline) {
        try {
            try {
                return sender.startAlone(line.key, decision).await(deadline - System.nanoTime());
            } finally {
                end(line, Line.ALONE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw calls.failed(e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw calls.failed(e);
        }
    }

    /** The answer of {@code batch}'s call; {@code waiter} taken out of it if the deadline comes before it went. */
    private static long[] awaitBatch(Line line, Batch batch, Waiter waiter, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return batch.answer.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException | TimeoutException e) {
            synchronized (line) {
                if (!batch.sealed) {
                    batch.waiters.remove(waiter);
                }
            }
            throw e;
        }
    }

    /**
     * Ends {@code batch}'s call for its key, if it is still the one out, and sends the decisions
     * that waited for it, if any still wait.
     */
    private void end(Line line, Batch batch) {
        Batch ended = batch;
        while (true) {
            @Nullable Batch next;
            synchronized (line) {
                if (line.out != ended) {
                    return;
                }
                next = line.next;
                line.next = null;
                if (next != null && next.waiters.isEmpty()) {
                    next = null;
                }
                line.out = next;
                if (next == null) {
                    line.over = true;
                    lines.remove(line.key, line);
                    return;
                }
                next.sealed = true;
            }
            CompletableFuture<long[]> answer = next.answer;
            try {
                sender.start(line.key, next.operation()).whenComplete((reply, failure) -> {
                    if (failure == null) {
                        answer.complete(reply);
                    } else {
                        answer.completeExceptionally(failure);
                    }
                });
                return;
            } catch (RuntimeException | Error e) {
                answer.completeExceptionally(e);
                ended = next;
            }
        }
    }

    /** One key's calls: the one out and the batch that waits for it; guarded by its own lock. */
    private static final class Line {

        /**
         * {@link #out} of a new line: the call of the lone decision that made it, sent as it is.
         * Only compared by identity, never sent or changed: each line has it once, first.
         */
        static final Batch ALONE = new Batch();

        final String key;
        /** The call out; a line in {@link #lines} always has one. */
        @Nullable Batch out = ALONE;
        @Nullable Batch next;
        /** Removed from {@link #lines}: a decision that finds it takes the key's new line. */
        boolean over;

        Line(String key) {
            this.key = key;
        }
    }

    /** Decisions sent as one call; {@link #waiters} change only until it is sealed, under its line's lock. */
    private static final class Batch {

        final List<Waiter> waiters = new ArrayList<>(4);
        boolean sealed;
        /** The answer of the batch's call, completed by the thread that receives it; its failure, or the start's. */
        final CompletableFuture<long[]> answer = new CompletableFuture<>();

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

    /** One decision; compared by identity. */
    private static final class Waiter {

        final GridOperation decision;

        Waiter(GridOperation decision) {
            this.decision = decision;
        }
    }
}
