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

/**
 * How long decisions held their callers while something happened to the store (a node
 * killed, say): the longest time {@link RateLimiter#decideAsync} took to return its stage,
 * and the longest time until the decision was there. A store's timeout must bound both.
 */
public final class CallerHoldTimes {

    /** Load before the event, so that decisions are in flight when it happens. */
    private static final Duration BEFORE = Duration.ofSeconds(1);
    /** Load after the event, while the cluster recovers from it. */
    private static final Duration AFTER = Duration.ofSeconds(3);
    /**
     * What the wait for an answer may exceed the timeout by: the timeout fires on the JDK's
     * timer thread, which a busy two-core machine may run late. Returning the stage gets none.
     */
    public static final Duration TIMER_GRACE = Duration.ofMillis(100);

    private final long longestReturnNanos;
    private final long longestAnswerNanos;
    private final int decisions;
    private final int unavailable;

    private CallerHoldTimes(long longestReturnNanos, long longestAnswerNanos, int decisions, int unavailable) {
        this.longestReturnNanos = longestReturnNanos;
        this.longestAnswerNanos = longestAnswerNanos;
        this.decisions = decisions;
        this.unavailable = unavailable;
    }

    /**
     * Decides on {@code keys} round robin from {@code threads} threads for a second, runs
     * {@code event}, and goes on for three seconds more, timing every decision.
     */
    public static CallerHoldTimes whileLoading(RateLimiter limiter, List<String> keys, int threads, Runnable event)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong longestReturn = new AtomicLong();
        AtomicLong longestAnswer = new AtomicLong();
        AtomicInteger decisions = new AtomicInteger();
        AtomicInteger unavailable = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> load = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                load.add(pool.submit(() -> {
                    for (int i = first; !stop.get(); i++) {
                        long start = System.nanoTime();
                        CompletionStage<Decision> stage = limiter.decideAsync(keys.get(i % keys.size()), 1);
                        long returned = System.nanoTime();
                        Decision decision = stage.toCompletableFuture().join();
                        long answered = System.nanoTime();
                        longestReturn.accumulateAndGet(returned - start, Math::max);
                        longestAnswer.accumulateAndGet(answered - start, Math::max);
                        decisions.incrementAndGet();
                        if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE) {
                            unavailable.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
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
        return new CallerHoldTimes(longestReturn.get(), longestAnswer.get(), decisions.get(), unavailable.get());
    }

    /**
     * Asserts that no decision held its caller beyond {@code timeout}: returning the stage took
     * less, and the answer came within it (plus {@link #TIMER_GRACE}).
     */
    public void assertWithin(Duration timeout) {
        assertThat(decisions).as("decisions made").isPositive();
        assertThat(Duration.ofNanos(longestReturnNanos)).as("longest return of decideAsync, %s", this)
                .isLessThan(timeout);
        assertThat(Duration.ofNanos(longestAnswerNanos)).as("longest wait for a decision, %s", this)
                .isLessThanOrEqualTo(timeout.plus(TIMER_GRACE));
    }

    @Override
    public String toString() {
        return decisions + " decisions (" + unavailable + " store unavailable), longest return "
                + longestReturnNanos / 1_000 + " us, longest wait for the answer " + longestAnswerNanos / 1_000 + " us";
    }
}
