package io.sluice.algorithms.grid;

import io.sluice.algorithms.calls.Causes;
import io.sluice.algorithms.calls.Deadlines;
import io.sluice.api.StoreUnavailableException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs a store's blocking calls to its cluster on threads of its own, so that no call holds
 * the caller: the caller's future has its timeout running before the call is handed over,
 * and it fails with a {@link StoreUnavailableException} when the call fails, when it does
 * not answer in time, when too many calls wait, or when the store is closed.
 *
 * <p>Why not the clients' asynchronous calls: Ignite's {@code invokeAsync} blocks its caller
 * while it connects to a node that is being lost (hundreds of milliseconds), and Hazelcast
 * completes the future of {@code submitToKey} on a thread it starts per answer when the
 * common pool has one thread (two cores). A blocking call on a thread of this pool does
 * neither. At most {@code concurrency} calls run at once (and one {@linkplain #send send} on
 * a thread of its own); up to {@link #QUEUED_PER_THREAD} times as many wait, and a call still
 * waiting when its caller timed out is never made, so it charges nothing.
 *
 * <p>A caller that waits anyway ({@code RateLimiter.decide}) may {@link #await} instead: a call
 * that a store can start without blocking (a Hazelcast member's invocation, whose future it
 * waits for rather than chaining to) is made on the caller's thread and waited for there with
 * the same timeout, so the answer wakes the caller directly. A caller that chains stages
 * ({@code RateLimiter.decideAsync}) may {@link #startAndHandBack} such a call: started on its
 * thread, the answer handed to a thread of the pool, which completes the caller's future.
 */
public final class GridCalls implements AutoCloseable {

    /** How many calls may wait per thread before new ones fail at once. */
    public static final int QUEUED_PER_THREAD = 16;

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final String target;
    private final Duration timeout;
    private final long timeoutNanos;
    private final ThreadPoolExecutor threads;
    /**
     * The one thread that {@linkplain #send sends}: a send waits for it while it is busy
     * rather than waking another, as long as fewer than {@value #QUEUED_PER_THREAD} sends
     * wait; one more (the sender blocks: a cluster losing a node) goes to {@link #threads}
     * instead. Measured with Ignite: sent by a thread of {@link #threads} in turn (64 by
     * default, the longest idle first, each with its own cold buffers: Ignite keeps its
     * marshalling buffers per thread), a send cost its thread 21 to 26 us of CPU per decision,
     * against 10 to 12 on two threads; and two senders took the sends of one caller in turn
     * (an idle thread pool hands a task to the thread idle longest), which cost the calling
     * JVM more CPU per decision than one sender (benchmarks-history.md, 2026-12-03).
     */
    private final ThreadPoolExecutor sender;
    /** Calls handed over and not yet started; bounded by {@link #maxWaiting}. */
    private final AtomicInteger waiting = new AtomicInteger();
    private final int maxWaiting;
    private final Deadlines deadlines;
    private volatile boolean closed;

    /**
     * A pool of {@code concurrency} threads for the calls to {@code target} (as in
     * {@code the Hazelcast map 'sluice'}, named in every failure), each bounded by {@code timeout},
     * and one thread for the {@linkplain #send sends}.
     * The threads wait for calls on a lock-free queue: a caller hands
     * a call over with compare-and-swaps, never waiting for a lock that a descheduled pool
     * thread holds (measured: such a wait held a caller 146 ms on a saturated machine).
     */
    public GridCalls(String target, Duration timeout, int concurrency) {
        this.target = target;
        this.timeout = GridChecks.positive("timeout", timeout);
        this.timeoutNanos = timeout.toNanos();
        GridChecks.atLeast("concurrency", 1, concurrency);
        String prefix = "sluice-grid-" + POOLS.incrementAndGet() + "-";
        this.maxWaiting = concurrency * QUEUED_PER_THREAD;
        this.threads = new ThreadPoolExecutor(concurrency, concurrency, 1, TimeUnit.MINUTES,
                new LinkedTransferQueue<>(), daemons(prefix, this));
        // Every thread starts now, so that no caller ever starts one (the pool's lock, and a
        // thread's start, on a saturated machine; a send handed over to this pool when the
        // sender blocks does so while a node is being lost).
        this.threads.prestartAllCoreThreads();
        this.sender = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES,
                new SendQueue(), daemons(prefix + "send-", null), (send, refused) -> threads.execute(send));
        this.sender.prestartAllCoreThreads();
        this.deadlines = new Deadlines(prefix + "timeouts-", timeout);
    }

    /** Daemon threads named {@code prefix} and a number; the threads of {@code pool}'s calls when given. */
    private static ThreadFactory daemons(String prefix, @Nullable GridCalls pool) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new PoolThread(runnable, prefix + count.incrementAndGet(), pool);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** A thread of a {@link GridCalls}, which knows whose calls it makes ({@code null}: the sending thread's). */
    private static final class PoolThread extends Thread {

        private final @Nullable GridCalls pool;

        PoolThread(Runnable task, String name, @Nullable GridCalls pool) {
            super(task, name);
            this.pool = pool;
        }
    }

    /**
     * Makes {@code call} on a thread of the pool. The returned future completes with its
     * result, or exceptionally with a {@link StoreUnavailableException} whose cause is the
     * call's failure (a {@link TimeoutException} after the timeout).
     */
    public <T> CompletableFuture<T> call(Supplier<T> call) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(target + " is closed"));
        }
        // The clock starts before the hand-off: waiting for a thread counts against the timeout.
        return call(call, deadlines.answerInTime(), timeoutNanos);
    }

    /**
     * As {@link #call(Supplier)}, with a timeout of its own (a warm-up may wait longer than a
     * decision): rare, so it uses the JDK's timer rather than the store's.
     */
    public <T> CompletableFuture<T> call(Supplier<T> call, Duration timeout) {
        long nanos = GridChecks.positive("timeout", timeout).toNanos();
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(target + " is closed"));
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        answer.orTimeout(nanos, TimeUnit.NANOSECONDS);
        return call(call, answer, nanos);
    }

    /**
     * Starts a call with {@code start} on the caller's thread, and completes the returned future
     * on a thread of the pool once the call answers. {@code start} must return without blocking
     * (a call the store starts on the cluster, or hands to {@link #send}, or makes with
     * {@link #call(Supplier)}); its future may complete on any thread. The returned future is
     * completed on the caller's thread when the call answered before {@code start} returned, on
     * the pool's thread that received the answer when it is one (a call made there), and else
     * by a thread of the pool that the answer is handed to: so what the caller chains never runs
     * on the cluster's threads nor on the sending thread, as with {@link #call(Supplier)}, and
     * a call started so holds no thread of the pool while it is out. A call started on the
     * caller's thread costs one thread hand-off fewer than a blocking call on the pool: no thread
     * of the pool is woken to make the call, only one to complete its future. Bounded by the
     * timeout from now, it fails as {@link #call(Supplier)}'s does.
     */
    public <T> CompletableFuture<T> startAndHandBack(Supplier<CompletableFuture<T>> start) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(target + " is closed"));
        }
        CompletableFuture<T> answer = deadlines.answerInTime();
        CompletableFuture<T> started;
        try {
            started = start.get();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        if (started.isDone()) {
            settle(answer, started);
        } else {
            CompletableFuture<T> call = started;
            call.whenComplete((value, failure) -> handBack(answer, call));
        }
        return answer.exceptionallyCompose(failure ->
                CompletableFuture.failedFuture(unavailable(failure, timeoutNanos)));
    }

    /** Completes {@code answer} as {@code call} did, on a thread of the pool (this one when it is). */
    private <T> void handBack(CompletableFuture<T> answer, CompletableFuture<T> call) {
        if (answer.isDone() || Thread.currentThread() instanceof PoolThread thread && thread.pool == this) {
            settle(answer, call);
            return;
        }
        try {
            // Not through execute(): an answer is never refused for the calls that wait.
            threads.execute(() -> settle(answer, call));
        } catch (RejectedExecutionException e) {
            // Closed meanwhile: answered here rather than left to the timeout.
            settle(answer, call);
        }
    }

    /** Completes {@code answer} as the completed {@code call} did, unless it timed out meanwhile. */
    private static <T> void settle(CompletableFuture<T> answer, CompletableFuture<T> call) {
        try {
            answer.complete(call.join());
        } catch (CompletionException | CancellationException e) {
            answer.completeExceptionally(e.getCause() != null ? e.getCause() : e);
        }
    }

    /**
     * Hands {@code send} to a thread of the pool, which sends a call and returns without waiting
     * for its answer: {@code send} registers, on the cluster's own future, a callback that
     * completes the future it is given, on the thread that receives the answer. The returned
     * future fails as {@link #call(Supplier)}'s does. One thread wake-up fewer than a blocking
     * call on the pool (the pool's thread is not woken by the answer and then wakes the caller:
     * the answer wakes the caller), and the pool's thread is free again once the call is sent;
     * a send that blocks (a cluster losing a node) holds the pool's thread, never the caller.
     *
     * <p>For a caller that waits for the answer ({@link #await}): whatever it chained to the
     * returned future would run on the cluster's thread.
     */
    public <T> CompletableFuture<T> send(Consumer<CompletableFuture<T>> send) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(target + " is closed"));
        }
        return hand(sender, send, deadlines.answerInTime(), timeoutNanos);
    }

    /**
     * Runs {@code task} on the sending thread after the sends handed over before it, bounded as
     * they are (while {@value #QUEUED_PER_THREAD} wait, on a thread of the pool instead): a send
     * {@code task} makes is queued behind it and taken by the same thread, with no thread woken.
     *
     * @return {@code false} when it cannot be handed over (the store is closed, or too many calls wait)
     */
    boolean onSendingThread(Runnable task) {
        return !closed && execute(sender, task);
    }

    /** Whether sends wait for the sending thread now, while it runs something else. */
    boolean sendsWait() {
        return !sender.getQueue().isEmpty();
    }

    /** A call started on the caller's thread, waited for as {@link Future#get(long, TimeUnit)} waits. */
    @FunctionalInterface
    public interface Started<T> {

        /** The call's answer, waiting at most {@code timeoutNanos}. */
        T await(long timeoutNanos) throws InterruptedException, ExecutionException, TimeoutException;

        /** Waiting for {@code future}. */
        static <T> Started<T> of(Future<T> future) {
            return timeoutNanos -> future.get(timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Starts a call on the caller's thread and waits there for its answer, at most the timeout
     * from before the start: one thread hand-off (the answer waking the caller) instead of the
     * pool's three when the call is the cluster's own. {@code start} must return without
     * blocking, whatever the cluster does; the store that passes it answers for that.
     *
     * @throws StoreUnavailableException when the call fails (its cause), does not answer in time
     *     (a {@link TimeoutException}), the caller is interrupted, or the store is closed
     */
    public <T> T await(Supplier<? extends Started<T>> start) {
        long deadline = deadline();
        try {
            return start.get().await(deadline - System.nanoTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(e, timeoutNanos);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw unavailable(e, timeoutNanos);
        }
    }

    /**
     * When a call waited for from now must have answered, in {@link System#nanoTime()}'s terms.
     *
     * @throws StoreUnavailableException when the store is closed
     */
    long deadline() {
        if (closed) {
            throw new StoreUnavailableException(target + " is closed");
        }
        return System.nanoTime() + timeoutNanos;
    }

    /** {@code failure} of a call waited for, as {@link #await} reports it. */
    StoreUnavailableException failed(Throwable failure) {
        return unavailable(failure, timeoutNanos);
    }

    private <T> CompletableFuture<T> call(Supplier<T> call, CompletableFuture<T> answer, long timeoutNanos) {
        return hand(threads, completing -> completing.complete(call.get()), answer, timeoutNanos);
    }

    /** Runs {@code task} on a thread of {@code pool} unless {@code answer} is done by then; it completes {@code answer}. */
    private <T> CompletableFuture<T> hand(ThreadPoolExecutor pool, Consumer<CompletableFuture<T>> task,
                                          CompletableFuture<T> answer, long timeoutNanos) {
        boolean handed = execute(pool, () -> {
            if (answer.isDone()) {
                // Its caller has given up: a call made now could only charge a request nobody sees.
                return;
            }
            try {
                task.accept(answer);
            } catch (RuntimeException | Error e) {
                answer.completeExceptionally(e);
            }
        });
        if (!handed) {
            answer.completeExceptionally(new RejectedExecutionException(closed ? target + " is closed"
                    : maxWaiting + " calls already wait for one of " + threads.getMaximumPoolSize() + " threads"));
        }
        return answer.exceptionallyCompose(failure ->
                CompletableFuture.failedFuture(unavailable(failure, timeoutNanos)));
    }

    /**
     * Runs {@code task} on a thread of {@code pool} unless {@link #maxWaiting} tasks already wait;
     * {@code false} when it was not handed over (too many wait, or the pool is closed).
     */
    private boolean execute(ThreadPoolExecutor pool, Runnable task) {
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            return false;
        }
        try {
            pool.execute(() -> {
                waiting.decrementAndGet();
                task.run();
            });
            return true;
        } catch (RejectedExecutionException e) {
            // Only a closed pool rejects.
            waiting.decrementAndGet();
            return false;
        }
    }

    private StoreUnavailableException unavailable(Throwable failure, long timeoutNanos) {
        Throwable cause = Causes.of(failure);
        if (cause instanceof StoreUnavailableException) {
            return (StoreUnavailableException) cause;
        }
        if (cause instanceof TimeoutException) {
            return new StoreUnavailableException(target + " did not answer within "
                    + Duration.ofNanos(timeoutNanos), cause);
        }
        return new StoreUnavailableException(closed ? target + " is closed" : target + " failed: " + cause, cause);
    }

    /** How long each call may take. */
    Duration timeout() {
        return timeout;
    }

    /** Stops taking calls; calls already running finish on their threads. */
    @Override
    public void close() {
        closed = true;
        threads.shutdown();
        sender.shutdown();
        deadlines.close();
    }

    @Override
    public String toString() {
        return "GridCalls[" + target + ", timeout " + timeout + ", " + threads.getMaximumPoolSize() + " threads]";
    }

    /**
     * The sender's queue: a send queues while fewer than {@value #QUEUED_PER_THREAD} sends wait,
     * and wakes the sender if it waits; one more is refused, and the pool hands it to
     * {@link #threads} (the sender blocks: a cluster losing a node).
     *
     * <p>The sender waits parked, never yielding its core. {@link LinkedTransferQueue#take}
     * yields once before it parks (JDK 17): on a machine whose cores are busy (two cores while
     * the JIT compiles) the idle sender gave its core to another thread and was still waiting
     * for it when the next send came, 249 to 507 us per decision in a fork's first 8 s,
     * against 30 to 103 parked (benchmarks-history.md, 2026-12-05). The sender's pool has one
     * thread and calls only {@link #offer} and {@link #take}, so one thread takes.
     */
    private static final class SendQueue extends LinkedTransferQueue<Runnable> {

        private static final long serialVersionUID = 1L;

        /** The sender while it waits parked for a send. */
        private transient volatile @Nullable Thread waiter;

        @Override
        public boolean offer(Runnable send) {
            // size() walks the queue, which holds at most QUEUED_PER_THREAD sends.
            if (size() >= QUEUED_PER_THREAD || !super.offer(send)) {
                return false;
            }
            Thread parked = waiter;
            if (parked != null) {
                LockSupport.unpark(parked);
            }
            return true;
        }

        @Override
        public Runnable take() throws InterruptedException {
            Runnable send;
            while ((send = poll()) == null) {
                waiter = Thread.currentThread();
                // Looked at after the waiter is set: a send offered before is seen here, and
                // one offered after sees the waiter and unparks it.
                if (isEmpty()) {
                    LockSupport.park(this);
                }
                waiter = null;
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            return send;
        }
    }
}
