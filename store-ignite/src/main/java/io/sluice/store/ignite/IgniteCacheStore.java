package io.sluice.store.ignite;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ignite.IgniteCache;
import org.apache.ignite.cache.CacheEntryProcessor;
import org.apache.ignite.lang.IgniteFuture;
import org.jspecify.annotations.Nullable;

/** A {@link Store} on an Ignite cache of {@code key -> KeyState.encode()}. */
final class IgniteCacheStore implements Store {

    private final IgniteCache<String, byte[]> cache;
    private final long timeoutNanos;
    private final Duration timeout;
    private final @Nullable TimeSource testClock;
    private volatile boolean closed;

    IgniteCacheStore(IgniteCache<String, byte[]> cache, Duration timeout, @Nullable TimeSource testClock) {
        this.cache = cache;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.testClock = testClock;
    }

    @Override
    public StoreCapabilities capabilities() {
        // The primary node's clock decides; a test clock only stands in for it in tests.
        return new StoreCapabilities(true, true, true);
    }


    @Override

    public boolean supports(Algorithm algorithm) {

        return Algorithms.isBuiltIn(algorithm);

    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        DecideProcessor processor = new DecideProcessor(LimitSpecs.of(limits), cost, fixedNowMicros());
        return invoke(key, processor).thenApply(encoded -> DecideProcessor.decode(encoded, limits));
    }

    @Override
    public CompletionStage<Boolean> holdsState(String key, Limit limit) {
        return invoke(key, new HoldsStateProcessor(limit.name(), fixedNowMicros()));
    }

    @Override
    public void close() {
        // The Ignite node belongs to the application; the store only stops using it.
        closed = true;
    }

    private long fixedNowMicros() {
        return testClock != null ? testClock.nowMicros() : DecideProcessor.MEMBER_CLOCK;
    }

    private <T> CompletableFuture<T> invoke(String key, CacheEntryProcessor<String, byte[], T> processor) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException(
                    "the Ignite store on cache '" + cache.getName() + "' is closed"));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            IgniteFuture<T> invocation = cache.invokeAsync(key, processor);
            invocation.listen(done -> {
                try {
                    result.complete(done.get());
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RuntimeException e) {
            // No node reachable, client disconnected, node stopping: Ignite throws at once.
            result.completeExceptionally(e);
        }
        return result.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
                .handle((value, failure) -> {
                    if (failure != null) {
                        throw storeFailure(failure);
                    }
                    return value;
                });
    }

    private CompletionException storeFailure(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        String message = cause instanceof TimeoutException
                ? "Ignite cache '" + cache.getName() + "' did not answer within " + timeout
                : "Ignite cache '" + cache.getName() + "' failed: " + cause;
        return new CompletionException(new StoreUnavailableException(message, cause));
    }

    @Override
    public String toString() {
        return "IgniteStore[cache " + cache.getName() + ", timeout " + timeout + "]";
    }
}
