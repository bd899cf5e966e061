package io.sluice.store.redis;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Ends the calls of one store that outlive its command timeout, on one thread of its own.
 * Every call has the same timeout, so calls enter in the order of their deadlines: a queue,
 * where a scheduled task per call (as {@code CompletableFuture.orTimeout} has) would take a
 * lock and a heap insertion and removal per decision.
 */
final class Deadlines implements AutoCloseable {

    /** What the thread ends when its deadline passes. */
    interface Expirable {

        /** {@link System#nanoTime()} after which the call has timed out. */
        long deadline();

        /** Whether the call ended already. */
        boolean isDone();

        /** Ends the call as timed out. */
        void expire();
    }

    private final ConcurrentLinkedQueue<Expirable> calls = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean idle;
    private volatile boolean closed;

    Deadlines(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Watches a call sent now. */
    void add(Expirable call) {
        calls.offer(call);
        if (idle) {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        while (!closed) {
            @Nullable Expirable head = calls.peek();
            if (head == null) {
                idle = true;
                if (calls.isEmpty() && !closed) {
                    LockSupport.park(this);
                }
                idle = false;
            } else if (head.isDone()) {
                calls.poll();
            } else {
                long wait = head.deadline() - System.nanoTime();
                if (wait <= 0) {
                    calls.poll();
                    head.expire();
                } else {
                    LockSupport.parkNanos(this, wait);
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
