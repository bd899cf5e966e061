package io.sluice.algorithms.calls;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Ends the calls that outlive one timeout, on one thread of its own, started by the first
 * call. Why not {@code CompletableFuture.orTimeout}: it schedules a task on the JDK's timer
 * for every call (a lock, a heap insertion and, when the answer comes first, a removal) and
 * cancels it through two more stages, which wakes the timer thread once a call when calls do
 * not overlap (measured: 12 to 26 us a call on a busy two-core machine against 6 to 8 for a
 * grid store's hand-off alone; about 8% of the bytes of a Redis decision). Every call here has
 * the same timeout, so deadlines come in the order calls were added: the thread sleeps until
 * the oldest one, drops the calls that ended, and ends the late ones, without being woken per
 * call.
 */
public final class Deadlines implements AutoCloseable {

    /** A call the thread ends when its deadline passes. */
    public interface Expirable {

        /** {@link System#nanoTime()} after which the call has timed out: when it was added plus the timeout. */
        long deadline();

        /** Whether the call ended already: the thread then forgets it. */
        boolean isDone();

        /** Ends the call as timed out; called at most once, and never for a call that was done. */
        void expire();
    }

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final String threadName;
    private final long timeoutNanos;
    private final ConcurrentLinkedQueue<Expirable> calls = new ConcurrentLinkedQueue<>();
    /** Started by the first call: a store or guard that never makes one costs no thread. */
    private volatile @Nullable Thread thread;
    private volatile boolean idle;
    private volatile boolean closed;

    /**
     * Deadlines {@code timeout} after each call is added, ended on a thread named
     * {@code threadName} and a number.
     *
     * @throws IllegalArgumentException when the timeout is not positive
     */
    public Deadlines(String threadName, Duration timeout) {
        this.threadName = Objects.requireNonNull(threadName, "threadName");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
    }

    /** The deadline of a call made now: {@link System#nanoTime()} plus the timeout. */
    private long deadlineFromNow() {
        return System.nanoTime() + timeoutNanos;
    }

    /**
     * Watches a call sent just now, whose {@link Expirable#deadline()} is the timeout from
     * then: the thread relies on calls coming in the order of their deadlines. Once closed,
     * the call expires at once: nothing would end it later.
     */
    public void add(Expirable call) {
        Thread watcher = thread;
        if (watcher == null) {
            watcher = start();
        }
        calls.offer(call);
        dropEnded();
        if (closed) {
            expireAll();
        } else if (idle && watcher != null) {
            LockSupport.unpark(watcher);
        }
    }

    /**
     * Drops up to two calls that ended from the head of the queue. The thread sleeps until the
     * oldest call's deadline, so with a long timeout (seconds) the calls that ended meanwhile
     * would stay queued, and their answers reachable, until then; each call added drops the
     * ended ones ahead of it instead, so the queue holds about the calls in flight.
     */
    private void dropEnded() {
        for (int i = 0; i < 2; i++) {
            @Nullable Expirable head = calls.peek();
            // remove, not poll: the thread may have taken this head meanwhile, and a poll would
            // then drop the next call, which may not have ended.
            if (head == null || !head.isDone() || !calls.remove(head)) {
                return;
            }
        }
    }

    /**
     * A future that completes as {@code call} does, or exceptionally with a
     * {@link TimeoutException} once the timeout passed from now, whichever comes first;
     * {@code call} itself is never completed here (the future is a copy).
     */
    public <T> CompletableFuture<T> bound(CompletionStage<T> call) {
        Bounded<T> bounded = new Bounded<>(deadlineFromNow());
        add(bounded);
        call.whenComplete(bounded);
        return bounded;
    }

    /**
     * A future that fails with a {@link TimeoutException} once the timeout passed from now,
     * unless it was completed first: the answer of a call that another thread completes.
     */
    public <T> CompletableFuture<T> answerInTime() {
        Bounded<T> answer = new Bounded<>(deadlineFromNow());
        add(answer);
        return answer;
    }

    /** The thread, started unless it was or the deadlines are closed. */
    private synchronized @Nullable Thread start() {
        Thread watcher = thread;
        if (watcher != null || closed) {
            return watcher;
        }
        watcher = new Thread(this::run, threadName + THREADS.incrementAndGet());
        watcher.setDaemon(true);
        thread = watcher;
        watcher.start();
        return watcher;
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
        expireAll();
    }

    /** Expires every call still watched: once closed, nothing would end them later. */
    private void expireAll() {
        for (Expirable call = calls.poll(); call != null; call = calls.poll()) {
            if (!call.isDone()) {
                call.expire();
            }
        }
    }

    /** Stops the thread; the calls it still watches, and any added from now on, expire at once. */
    @Override
    public void close() {
        closed = true;
        Thread watcher = start();
        if (watcher != null) {
            LockSupport.unpark(watcher);
        } else {
            expireAll();
        }
    }

    @Override
    public String toString() {
        return "Deadlines[" + threadName + ", " + Duration.ofNanos(timeoutNanos) + "]";
    }

    /** A future that fails with a {@link TimeoutException} at its deadline unless completed first. */
    private static final class Bounded<T> extends CompletableFuture<T>
            implements Expirable, BiConsumer<T, Throwable> {

        private final long deadline;

        Bounded(long deadline) {
            this.deadline = deadline;
        }

        @Override
        public long deadline() {
            return deadline;
        }

        @Override
        public void expire() {
            completeExceptionally(new TimeoutException());
        }

        /** The bounded call's answer. */
        @Override
        public void accept(@Nullable T answer, @Nullable Throwable failure) {
            if (failure == null) {
                complete(answer);
            } else {
                completeExceptionally(failure);
            }
        }
    }
}
