package io.sluice.store.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreUnavailableException;
import io.sluice.testkit.VirtualClock;
import io.sluice.testkit.redis.RedisFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Concurrent decisions on one standalone connection share script calls (decide-batch.lua), on
 * Redis Functions and on scripts: fewer calls than decisions, each decision exact, and one
 * decision's error fails that decision alone.
 */
class RedisBatchIT {

    @RegisterExtension
    static final RedisFixture redis = RedisFixture.standalone();

    private static final Duration TEST_TIMEOUT = Duration.ofSeconds(10);
    private static final long T0 = 1_764_000_000_000_000L;
    private static final int THREADS = 16;
    private static final String SCRIPTS_USER = "sluice-scripts";

    private final List<Store> stores = new ArrayList<>();

    @BeforeEach
    void emptyRedis() {
        redis.command(0, "FLUSHALL");
    }

    @AfterEach
    void closeStores() {
        stores.forEach(Store::close);
        if (functionsAvailable()) {
            redis.command(0, "ACL", "DELUSER", SCRIPTS_USER);
        }
    }

    /**
     * {@code THREADS} threads on one key of a limit of {@code permits} and a clock that stands
     * still: exactly {@code permits} admitted, whichever decisions went together.
     */
    @ParameterizedTest
    @ValueSource(strings = {"functions", "scripts"})
    void concurrentDecisionsOnOneKeyShareCallsAndAdmitExactlyTheLimit(String path) throws Exception {
        Store store = store(path);
        int permits = 150;
        int perThread = 40;
        for (Algorithm algorithm : List.of(Algorithms.TOKEN_BUCKET, Algorithms.GCRA, Algorithms.SLIDING_LOG)) {
            List<Limit> limits = List.of(Limit.of(algorithm, permits, Duration.ofHours(1)).named(algorithm.name()));
            redis.command(0, "CONFIG", "RESETSTAT");
            AtomicInteger admitted = new AtomicInteger();
            runConcurrently(perThread, i -> {
                if (decide(store, "one-key-" + algorithm.name(), limits).allowed()) {
                    admitted.incrementAndGet();
                }
            });
            assertThat(admitted.get()).as(algorithm.name()).isEqualTo(permits);
            assertThat(calls(command(path))).as("calls of %s for %d decisions", algorithm.name(), THREADS * perThread)
                    .isPositive().isLessThan(THREADS * perThread);
        }
    }

    /**
     * A key of another type fails its decisions with the store being unavailable, while the
     * decisions batched with them are answered: each reply of a batch is its decision's own.
     */
    @ParameterizedTest
    @ValueSource(strings = {"functions", "scripts"})
    void aDecisionsErrorFailsThatDecisionAlone(String path) throws Exception {
        Store store = store(path);
        redis.command(0, "RPUSH", RedisKeys.key("a-list"), "not a state");
        List<Limit> limits = List.of(Limit.of(Algorithms.GCRA, 1_000_000, Duration.ofSeconds(1)).named("gcra"));
        redis.command(0, "CONFIG", "RESETSTAT");
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        int perThread = 30;
        runConcurrently(perThread, i -> {
            boolean broken = i % 3 == 0;
            try {
                if (decide(store, broken ? "a-list" : "client-" + i, limits).allowed() && !broken) {
                    admitted.incrementAndGet();
                }
            } catch (CompletionException e) {
                assertThat(e.getCause()).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("WRONGTYPE");
                if (broken) {
                    failed.incrementAndGet();
                }
            }
        });
        int decisions = THREADS * perThread;
        assertThat(failed.get()).isEqualTo(decisions / 3);
        assertThat(admitted.get()).isEqualTo(decisions - decisions / 3);
        assertThat(calls(command(path))).isLessThan(decisions);
    }

    /** The store on Redis Functions, or on scripts: the only path of Redis 6.2, else a user without FUNCTION. */
    private Store store(String path) {
        RedisURI uri = RedisURI.create(redis.uri());
        if (path.equals("scripts") && functionsAvailable()) {
            redis.command(0, "ACL", "SETUSER", SCRIPTS_USER, "on", ">secret", "~*", "&*", "+@all", "-function");
            uri = RedisURI.create(redis.uri().replace("redis://", "redis://" + SCRIPTS_USER + ":secret@"));
        }
        Store store = RedisStore.standalone(uri).commandTimeout(TEST_TIMEOUT).countInstances(false)
                .clockForTesting(new VirtualClock(T0)).build();
        stores.add(store);
        return store;
    }

    private interface Step {
        void run(int thread) throws Exception;
    }

    /** Each of {@code THREADS} threads runs {@code perThread} steps, all starting together. */
    private static void runConcurrently(int perThread, Step step) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                runs.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        step.run(thread * perThread + i);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static Decision decide(Store store, String key, List<Limit> limits) {
        CompletableFuture<Decision> decision = store.tryAcquire(key, limits, 1).toCompletableFuture();
        return decision.join();
    }

    private static boolean functionsAvailable() {
        return !redis.version().startsWith("6.");
    }

    private static String command(String path) {
        return path.equals("functions") && functionsAvailable() ? "fcall" : "evalsha";
    }

    /** The calls of a command since the last {@code CONFIG RESETSTAT}, from {@code INFO commandstats}. */
    private static long calls(String command) {
        String info = (String) redis.command(0, "INFO", "commandstats");
        Matcher matcher = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(info);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }
}
