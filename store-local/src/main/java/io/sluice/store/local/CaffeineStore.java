package io.sluice.store.local;

import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.StoreUnavailableException;
import io.sluice.api.TimeSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The local store: one {@link KeyState} per key in a Caffeine cache, changed only inside
 * {@code compute}, which holds the key's lock, so every decision on a key is atomic.
 */
final class CaffeineStore implements Store {

    /**
     * The clock is read inside the atomic step and no caller supplies a time, so all the
     * decisions on a state use this store's one clock: the guarantee {@code serverClock}
     * names, although that clock is this process's own.
     */
    private static final StoreCapabilities CAPABILITIES = new StoreCapabilities(true, true, true);

    private final TimeSource clock;
    private final ConcurrentMap<String, KeyState> states;
    private volatile boolean closed;

    CaffeineStore(long maximumSize, TimeSource clock) {
        this.clock = clock;
        this.states = Caffeine.newBuilder()
                .maximumSize(maximumSize)
                .expireAfter(new UntilFullyReset())
                // Caffeine's clock for expiry is the store's clock, so a virtual clock in
                // tests moves expiry too.
                .ticker(() -> microsToNanos(clock.nowMicros()))
                // Maintenance (expiry, eviction) runs on the calling threads, amortised, rather
                // than on the common pool, where busy application tasks could delay it while
                // memory grows.
                .executor(Runnable::run)
                .<String, KeyState>build()
                .asMap();
    }

    @Override
    public StoreCapabilities capabilities() {
        return CAPABILITIES;
    }


    @Override

    public boolean supports(Algorithm algorithm) {

        // The algorithms run here, in this JVM, whatever they are.
        return true;

    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("the local store is closed"));
        }
        Charge charge = new Charge(limits, cost);
        try {
            states.compute(key, charge);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("the local store failed", e));
        }
        return CompletableFuture.completedFuture(charge.decision);
    }

    @Override
    public CompletionStage<Boolean> holdsState(String key, Limit limit) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("the local store is closed"));
        }
        boolean[] holds = new boolean[1];
        // Inside computeIfPresent because a KeyState may be read only under the key's lock.
        states.computeIfPresent(key, (k, state) -> {
            holds[0] = state.holds(limit.name(), clock.nowMicros());
            return state;
        });
        return CompletableFuture.completedFuture(holds[0]);
    }

    @Override
    public void close() {
        closed = true;
        states.clear();
    }

    /** One request's step on one key's state; it runs under the key's lock. */
    private final class Charge implements BiFunction<String, KeyState, KeyState> {

        private final List<Limit> limits;
        private final long cost;
        /** Set by {@link #apply}, which {@code compute} always runs. */
        private @Nullable Decision decision;

        Charge(List<Limit> limits, long cost) {
            this.limits = limits;
            this.cost = cost;
        }

        @Override
        public @Nullable KeyState apply(String key, @Nullable KeyState stored) {
            KeyState state = stored != null ? stored : KeyState.empty();
            decision = state.tryAcquire(limits, clock.nowMicros(), cost);
            // A key whose request was denied on no state stays absent.
            return state.isEmpty() ? null : state;
        }
    }

    /** Expires a key's state exactly when its last limit is fully reset. */
    private static final class UntilFullyReset implements Expiry<String, KeyState> {

        @Override
        public long expireAfterCreate(String key, KeyState state, long currentTimeNanos) {
            return Math.max(0, microsToNanos(state.expiresAtMicros()) - currentTimeNanos);
        }

        @Override
        public long expireAfterUpdate(String key, KeyState state, long currentTimeNanos,
                                      long currentDurationNanos) {
            return expireAfterCreate(key, state, currentTimeNanos);
        }

        @Override
        public long expireAfterRead(String key, KeyState state, long currentTimeNanos,
                                    long currentDurationNanos) {
            return currentDurationNanos;
        }
    }

    /** Epoch microseconds as Caffeine's nanosecond ticks, saturated instead of overflowing. */
    private static long microsToNanos(long micros) {
        if (micros >= Long.MAX_VALUE / 1_000) {
            return Long.MAX_VALUE;
        }
        if (micros <= Long.MIN_VALUE / 1_000) {
            return Long.MIN_VALUE;
        }
        return micros * 1_000;
    }
}
