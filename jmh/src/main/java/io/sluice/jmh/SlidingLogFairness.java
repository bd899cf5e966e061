package io.sluice.jmh;

import io.lettuce.core.RedisURI;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.RateLimiter;
import io.sluice.api.Store;
import io.sluice.core.StoreGuard;
import io.sluice.store.redis.RedisStore;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Issue 10's fairness probe: does one client looping on its own denied requests against a full
 * sliding log of 10,000 entries slow everyone else down? On one standalone Redis with the
 * production timeouts (100 ms), {@code others} threads decide a token bucket on random keys,
 * first alone, then while one more thread loops on the abusive client's denials, then alone
 * again; each phase prints the others' median and p99 decision time and the share of their
 * decisions that were {@code STORE_UNAVAILABLE}. The block cache is off, so that every denial
 * of the abusive client reaches Redis, as a loop of distinct gateways' requests would.
 *
 * <pre>{@code
 * java -cp "$CP" io.sluice.jmh.SlidingLogFairness [seconds per phase, default 5] [others, default 4]
 * }</pre>
 */
public final class SlidingLogFairness {

    private static final long LOG_PERMITS = 10_000;
    private static final int CLIENTS = 100_000;

    private SlidingLogFairness() {
    }

    /** Runs the three phases and prints one line per phase. */
    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        int others = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        try (RedisFixture redis = RedisTopology.STANDALONE.start();
             Store store = RedisStore.standalone(RedisURI.create(redis.uri())).build()) {
            RateLimiter abusive = limiter(store, Limit.of(Algorithms.SLIDING_LOG, LOG_PERMITS, Duration.ofHours(1))
                    .named("per-hour"));
            RateLimiter everyone = limiter(store, Limit.of(Algorithms.TOKEN_BUCKET, 100, Duration.ofSeconds(1))
                    .named("per-second"));
            long admitted = 0;
            while (admitted < LOG_PERMITS) {
                // Filling the log: a timeout here only repeats the request.
                if (abusive.decide("abusive", 1).allowed()) {
                    admitted++;
                }
            }
            System.out.printf("sliding log of %,d entries filled; %d other threads, %d s per phase%n", LOG_PERMITS,
                    others, seconds);
            phase("others alone", everyone, others, seconds, null);
            phase("others + abusive loop", everyone, others, seconds, abusive);
            phase("others alone again", everyone, others, seconds, null);
        }
    }

    private static RateLimiter limiter(Store store, Limit limit) {
        return RateLimiter.builder().store(store).layer(StoreGuard.custom().blockCacheSize(0).build()).limit(limit)
                .build();
    }

    private static void phase(String name, RateLimiter everyone, int others, long seconds,
                              @Nullable RateLimiter abusive)
            throws InterruptedException {
        AtomicBoolean running = new AtomicBoolean(true);
        long[] abusiveCalls = new long[2];
        List<long[]> times = new ArrayList<>();
        long[][] counts = new long[others][2];
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < others; t++) {
            long[] mine = new long[4_000_000];
            times.add(mine);
            long[] count = counts[t];
            threads.add(new Thread(() -> {
                int n = 0;
                while (running.get() && n < mine.length) {
                    String key = "client-" + ThreadLocalRandom.current().nextInt(CLIENTS);
                    long start = System.nanoTime();
                    Decision decision = everyone.decide(key, 1);
                    mine[n++] = System.nanoTime() - start;
                    if (decision.reason() == Decision.Reason.STORE_UNAVAILABLE) {
                        count[1]++;
                    }
                }
                count[0] = n;
            }, "other-" + t));
        }
        if (abusive != null) {
            threads.add(new Thread(() -> {
                while (running.get()) {
                    Decision decision = abusive.decide("abusive", 1);
                    abusiveCalls[decision.allowed() ? 1 : 0]++;
                }
            }, "abusive"));
        }
        threads.forEach(Thread::start);
        Thread.sleep(seconds * 1_000);
        running.set(false);
        for (Thread thread : threads) {
            thread.join();
        }
        long total = 0;
        long unavailable = 0;
        for (long[] count : counts) {
            total += count[0];
            unavailable += count[1];
        }
        long[] all = new long[(int) total];
        int at = 0;
        for (int t = 0; t < others; t++) {
            System.arraycopy(times.get(t), 0, all, at, (int) counts[t][0]);
            at += (int) counts[t][0];
        }
        Arrays.sort(all);
        System.out.printf("%-22s others: %,d decisions (%,.0f/s), p50 %.1f us, p99 %.1f us, unavailable %.2f%%"
                        + "%s%n", name, total, total / (double) seconds, all[all.length / 2] / 1e3,
                all[(int) (all.length * 0.99)] / 1e3, 100.0 * unavailable / Math.max(1, total),
                abusive == null ? "" : String.format("; abusive client: %,d denied, %,d admitted (%,.0f/s)",
                        abusiveCalls[0], abusiveCalls[1], (abusiveCalls[0] + abusiveCalls[1]) / (double) seconds));
    }
}
