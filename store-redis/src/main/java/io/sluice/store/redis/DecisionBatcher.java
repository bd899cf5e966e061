package io.sluice.store.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * When the store's decisions go to Redis: one is sent at once while fewer than {@code window}
 * commands of the batcher are in flight, so that a lone caller waits for exactly one round
 * trip; otherwise it waits in a queue, and when a command in flight completes, everything
 * queued (up to {@code largest}) goes in its place as one command. On a loaded machine the
 * per-command CPU of both ends (a socket write and read, a reply, a script call) is what
 * limits decisions; decisions that wait anyway share it.
 *
 * <p>A queued call that is done by the time it would be sent (its deadline passed) is left out,
 * never sent. Thread-safe; the sender runs outside the lock, on the submitting thread or the
 * thread that reports a completion.
 *
 * @param <T> a decision's call, done once it has its outcome
 */
final class DecisionBatcher<T extends Future<?>> {

    private final int window;
    private final int largest;
    /** Sends one command for these calls (one call, or several), and reports its completion to {@link #completed}. */
    private final Consumer<List<T>> sender;
    /** Guarded by this. */
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    /** Commands sent and not yet completed; guarded by this. */
    private int inFlight;

    /**
     * @param window how many commands may be in flight before calls wait
     * @param largest the most calls one command carries
     * @throws IllegalArgumentException when either is below 1
     */
    DecisionBatcher(int window, int largest, Consumer<List<T>> sender) {
        if (window < 1 || largest < 1) {
            throw new IllegalArgumentException("window and largest batch must be at least 1: " + window + ", " + largest);
        }
        this.window = window;
        this.largest = largest;
        this.sender = sender;
    }

    /** Sends the call now if a command may be in flight, else queues it for the next completion. */
    void submit(T call) {
        synchronized (this) {
            if (inFlight >= window) {
                queue.add(call);
                return;
            }
            inFlight++;
        }
        sender.accept(List.of(call));
    }

    /**
     * A command that the sender sent completed (answered, failed or cancelled): the calls
     * queued meanwhile that are not done yet go as the next command, else a slot frees up.
     */
    void completed() {
        List<T> next = null;
        synchronized (this) {
            T call;
            while ((next == null || next.size() < largest) && (call = queue.poll()) != null) {
                if (!call.isDone()) {
                    if (next == null) {
                        next = new ArrayList<>(Math.min(largest, queue.size() + 1));
                    }
                    next.add(call);
                }
            }
            if (next == null) {
                inFlight--;
                return;
            }
        }
        sender.accept(next);
    }
}
