package io.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.Decision;
import io.sluice.api.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How long decisions held their callers while something happened to the store (a node
 * killed, say): the longest time {@link RateLimiter#decideAsync} took to return its stage,
 * and the longest time until the decision was there, from {@code decideAsync} or from
 * {@link RateLimiter#decide} (every other decision of each thread), which a store may answer
 * on the caller's thread. A store's timeout must bound both.
 *
 * <p>On a busy machine any thread may be descheduled, or stopped by the garbage collector,
 * for longer than a timeout, whatever the store does. So a probe thread measures, during the
 * same window, the longest a 1 ms park overslept: that lag is what the machine added, and
 * the bounds allow it on top of the timeout.
 */
public final class CallerHoldTimes {

    /** Load before the event, so that decisions are in flight when it happens. */
    private static final Duration BEFORE = Duration.ofSeconds(1);
    /** Load after the event, while the cluster recovers from it. */
    private static final Duration AFTER = Duration.ofSeconds(3);
    /**
     * What a decision may exceed the timeout by on a busy two-core machine, beyond the probe's
     * lag: the timeout fires on a timer thread that may run late, and a caller may wait for a
     * lock held by a thread the scheduler has set aside, which a probe that takes no lock
     * does not see.
     */
    public static final Duration TIMER_GRACE = Duration.ofMillis(100);

    private static final long PROBE_PARK_NANOS = 1_000_000;

    private final long longestReturnNanos;
    private final long longestAnswerNanos;
    private final long machineLagNanos;
    private final int decisions;
    private final int unavailable;

    private CallerHoldTimes(long longestReturnNanos, long longestAnswerNanos, long machineLagNanos, int decisions,
                            int unavailable) {
        this.longestReturnNanos = longestReturnNanos;
        this.longestAnswerNanos = longestAnswerNanos;
        this.machineLagNanos = machineLagNanos;
        this.decisions = decisions;
        this.unavailable = unavailable;
    }

    /**
     * Decides on {@code keys} round robin from {@code threads} threads for a second, runs
     * {@code event}, and goes on for three seconds more, timing every decision, half of them
     * asked with {@code decide} and half with {@code decideAsync}.
     */
    public static CallerHoldTimes whileLoading(RateLimiter limiter, List<String> keys, int threads, Runnable event)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong longestReturn = new AtomicLong();
        AtomicLong longestAnswer = new AtomicLong();
        AtomicInteger decisions = new AtomicInteger();
        AtomicInteger unavailable = new AtomicInteger();
        AtomicLong lag = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        try {
            List<Future<?>> load = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                load.add(pool.submit(() -> {
                    for (int i = first; !stop.get(); i++) {
                        String key = keys.get(i % keys.size());
                        long start = System.nanoTime();
                        Decision decision;
                        if (i % 2 == 0) {
                            CompletionStage<Decision> stage = limiter.decideAsync(key, 1);
                            longestReturn.accumulateAndGet(System.nanoTime() - start, Math::max);
                            decision = stage.toCompletableFuture().join();
                        } else {
                            decision = limiter.decide(key, 1);
                        }
                        long answered = System.nanoTime();
                        longestAnswer.accumulateAndGet(answered - start, Math::max);
                        decisions.incrementAndGet();
                        if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE) {
                            unavailable.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            load.add(pool.submit(() -> {
                while (!stop.get()) {
                    long start = System.nanoTime();
                    LockSupport.parkNanos(PROBE_PARK_NANOS);
                    lag.accumulateAndGet(System.nanoTime() - start - PROBE_PARK_NANOS, Math::max);
                }
                return null;
            }));
            Thread.sleep(BEFORE.toMillis());
            event.run();
            Thread.sleep(AFTER.toMillis());
            stop.set(true);
            for (Future<?> done : load) {
                done.get(1, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return new CallerHoldTimes(longestReturn.get(), longestAnswer.get(), lag.get(), decisions.get(),
                unavailable.get());
    }

    /**
     * Asserts that no decision held its caller beyond {@code timeout}, plus what the machine
     * added (the probe's lag and {@link #TIMER_GRACE}): neither returning the stage nor
     * waiting for the answer.
     */
    public void assertWithin(Duration timeout) {
        assertThat(decisions).as("decisions made").isPositive();
        Duration lag = Duration.ofNanos(machineLagNanos);
        assertThat(Duration.ofNanos(longestReturnNanos)).as("longest return of decideAsync, %s", this)
                .isLessThan(timeout.plus(TIMER_GRACE).plus(lag));
        assertThat(Duration.ofNanos(longestAnswerNanos)).as("longest wait for a decision, %s", this)
                .isLessThanOrEqualTo(timeout.plus(TIMER_GRACE).plus(lag));
    }

    @Override
    public String toString() {
        return decisions + " decisions (" + unavailable + " store unavailable), longest return "
                + longestReturnNanos / 1_000 + " us, longest wait for the answer " + longestAnswerNanos / 1_000
                + " us, longest lag of a probe thread (what the machine added) " + machineLagNanos / 1_000 + " us";
    }
}
