package io.sluice.store.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The store behind {@link HazelcastStore}: one {@code submitToKey} per request, whose entry
 * processor decides on the key's owner; failures and timeouts become
 * {@link StoreUnavailableException}s carrying Hazelcast's exception.
 */
final class EntryProcessorStore implements Store {

    /** Decisions use the owning member's clock, inside the entry processor. */
    private static final StoreCapabilities CAPABILITIES = new StoreCapabilities(true, true, true);

    private final HazelcastInstance instance;
    private final String mapName;
    private final long timeoutNanos;
    private final Duration timeout;
    private final @Nullable TimeSource testClock;
    private volatile @Nullable IMap<String, byte[]> map;
    private volatile boolean closed;

    EntryProcessorStore(HazelcastInstance instance, String mapName, Duration timeout, @Nullable TimeSource testClock) {
        this.instance = instance;
        this.mapName = mapName;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.testClock = testClock;
    }

    @Override
    public StoreCapabilities capabilities() {
        return CAPABILITIES;
    }


    @Override

    public boolean supports(Algorithm algorithm) {

        return Algorithms.isBuiltIn(algorithm);

    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        for (Limit limit : limits) {
            if (!Algorithms.all().contains(limit.algorithm())) {
                // The members rebuild limits from the algorithms' names; they know only these.
                return CompletableFuture.failedFuture(new IllegalArgumentException(
                        "the Hazelcast store runs only the built-in algorithms, not "
                                + limit.algorithm().getClass().getName() + " of limit " + limit.name()));
            }
        }
        ApplyLimits processor = new ApplyLimits(limits, cost, now());
        return submit(key, processor).thenApply(encoded -> DecisionCodec.decode(encoded, limits));
    }

    @Override
    public CompletionStage<Boolean> holdsState(String key, Limit limit) {
        return submit(key, new HoldsState(limit.name(), now()));
    }

    @Override
    public void close() {
        closed = true;
    }

    private long now() {
        return testClock != null ? testClock.nowMicros() : ApplyLimits.MEMBER_CLOCK;
    }

    /**
     * Runs {@code processor} on {@code key}'s owner. The result is a future of our own, so the
     * timeout completes it without touching Hazelcast's future. Callers' non-async dependent
     * stages run on the thread that received the answer (a Hazelcast I/O or response thread):
     * heavy work belongs in the {@code *Async} variants.
     */
    private <R> CompletableFuture<R> submit(String key, EntryProcessor<String, byte[], R> processor) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(
                    "the Hazelcast store on map '" + mapName + "' is closed"));
        }
        CompletableFuture<R> answer = new CompletableFuture<>();
        try {
            // On a member, submitToKey's stage is a DelegatingCompletableFuture over an
            // InvocationFuture. The InvocationFuture runs every dependent without an executor of
            // its own (handle, whenComplete...) on Hazelcast's default asynchronous executor: the
            // common pool, or a new thread per task when the common pool's parallelism is 1
            // (two cores). The wrapper's whenComplete* also wrap their result in a new
            // DelegatingCompletableFuture, which registers one more such callback. handleAsync
            // with Runnable::run does neither: it runs on the thread that received the answer
            // and returns a plain CompletableFuture. (The wrapper of submitToKey itself still
            // completes on that executor; nothing in the public API avoids it.)
            map().submitToKey(key, processor).handleAsync((result, failure) -> {
                if (failure != null) {
                    answer.completeExceptionally(unavailable(failure));
                } else {
                    answer.complete(result);
                }
                return null;
            }, Runnable::run);
        } catch (RuntimeException e) {
            // A client with no connection to the cluster fails before returning a stage.
            answer.completeExceptionally(unavailable(e));
            return answer;
        }
        return answer.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).exceptionallyCompose(failure -> {
            Throwable cause = unwrap(failure);
            return CompletableFuture.failedFuture(cause instanceof TimeoutException
                    ? new StoreUnavailableException("the Hazelcast map '" + mapName
                            + "' did not answer within " + timeout, cause)
                    : cause);
        });
    }

    private StoreUnavailableException unavailable(Throwable failure) {
        Throwable cause = unwrap(failure);
        return new StoreUnavailableException("the Hazelcast map '" + mapName + "' failed: " + cause, cause);
    }

    /**
     * The map's proxy, created on first use: a client creates it on the cluster, so a store
     * built while the cluster is unreachable works once it is back.
     */
    private IMap<String, byte[]> map() {
        IMap<String, byte[]> proxy = map;
        if (proxy == null) {
            proxy = instance.getMap(mapName);
            map = proxy;
        }
        return proxy;
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
