package io.sluice.store.local;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.Ticker;
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
import java.util.concurrent.TimeUnit;

/**
 * The local store: one {@link KeyState} per key, in a {@link Cell} of a Caffeine cache,
 * changed only under the cell's lock, so every decision on a key is atomic.
 *
 * <p>Why not Caffeine's {@code compute}: it is the map's write path (the bin's lock, the write
 * buffer, the expiry recomputed), which every decision would take, denials included. Here a
 * decision reads the cell lock-free and locks only the cell; when an admission moves the
 * state's expiry later, it moves the entry's expiry with it, under the same lock, so the
 * entry never expires before its state is fully reset. A cell that expired or was evicted
 * while a request was being admitted on it is detected afterwards and the request decided
 * again on what the map holds then: a charge is never left in a cell the map forgot.
 */
final class CaffeineStore implements Store {

    /**
     * The clock is read inside the atomic step and no caller supplies a time, so all the
     * decisions on a state use this store's one clock: the guarantee {@code serverClock}
     * names, although that clock is this process's own.
     */
    private static final StoreCapabilities CAPABILITIES = new StoreCapabilities(true, true, true);

    private final TimeSource clock;
    private final ConcurrentMap<String, Cell> states;
    private final Policy.VarExpiration<String, Cell> expiration;
    private volatile boolean closed;

    CaffeineStore(long maximumSize, TimeSource clock, boolean systemClock) {
        this.clock = clock;
        Cache<String, Cell> cache = Caffeine.newBuilder()
                .maximumSize(maximumSize)
                .expireAfter(new UntilFullyReset())
                // Expiry is given as durations, so Caffeine's clock need only tick at the rate of
                // the store's: the system's monotonic clock (much cheaper to read than the time
                // of day, and read on every access), or a test's virtual clock, so that
                // moving it moves expiry too.
                .ticker(systemClock ? Ticker.systemTicker() : () -> microsToNanos(clock.nowMicros()))
                // Maintenance (expiry, eviction) runs on the calling threads, amortised, rather
                // than on the common pool, where busy application tasks could delay it while
                // memory grows.
                .executor(Runnable::run)
                .build();
        this.states = cache.asMap();
        this.expiration = cache.policy().expireVariably().orElseThrow();
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
        try {
            return CompletableFuture.completedFuture(decide(key, limits, cost));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("the local store failed", e));
        }
    }

    private Decision decide(String key, List<Limit> limits, long cost) {
        while (true) {
            Cell cell = states.get(key);
            if (cell == null) {
                KeyState fresh = KeyState.empty();
                long nowMicros = clock.nowMicros();
                Decision decision = fresh.tryAcquire(limits, nowMicros, cost);
                // A key denied on no state stays absent; one admitted gets a cell unless
                // another request made one first, in which case it is decided on that one.
                if (!decision.allowed() || fresh.isEmpty()
                        || states.putIfAbsent(key, new Cell(fresh, nowMicros)) == null) {
                    return decision;
                }
                continue;
            }
            Decision decision;
            synchronized (cell) {
                decision = cell.tryAcquire(key, limits, clock.nowMicros(), cost);
            }
            if (!decision.allowed() || states.get(key) == cell) {
                // A denial changed nothing; an admission is in a cell the map still holds, whose
                // expiry it moved past now.
                return decision;
            }
        }
    }

    /**
     * Whether the cache holds an entry for this key that has not expired: the conformance kit's
     * probe of the memory a key costs. An expired entry is freed by the cache's maintenance,
     * which runs on the calling threads.
     */
    boolean holdsEntryFor(String key) {
        return states.containsKey(key);
    }

    @Override
    public void close() {
        closed = true;
        states.clear();
    }

    /** One key's state, changed only under its monitor. */
    private final class Cell {

        private final KeyState state;
        /** The expiry Caffeine was last given, in the store's microseconds. */
        private long entryExpiresAtMicros;
        /** How long the entry must live from its creation; read by {@link UntilFullyReset}. */
        private final long createdTtlNanos;

        Cell(KeyState state, long nowMicros) {
            this.state = state;
            this.entryExpiresAtMicros = state.expiresAtMicros();
            this.createdTtlNanos = microsToNanos(entryExpiresAtMicros - nowMicros);
        }

        /** Decides on this cell; the caller holds its monitor. */
        Decision tryAcquire(String key, List<Limit> limits, long nowMicros, long cost) {
            Decision decision = state.tryAcquire(limits, nowMicros, cost);
            long expiresAt = state.expiresAtMicros();
            if (decision.allowed() && expiresAt > entryExpiresAtMicros) {
                entryExpiresAtMicros = expiresAt;
                // Measured from Caffeine's own reading of the clock, which comes later: the entry
                // may outlive its state by that much, never the reverse.
                expiration.setExpiresAfter(key, microsToNanos(expiresAt - nowMicros), TimeUnit.NANOSECONDS);
            }
            return decision;
        }
    }

    /** Expires a key's state exactly when its last limit is fully reset. */
    private final class UntilFullyReset implements Expiry<String, Cell> {

        @Override
        public long expireAfterCreate(String key, Cell cell, long currentTimeNanos) {
            // Measured from Caffeine's reading of its clock, later than the decision's: the
            // entry may outlive its state by that much, never the reverse.
            return Math.max(0, cell.createdTtlNanos);
        }

        @Override
        public long expireAfterUpdate(String key, Cell cell, long currentTimeNanos,
                                      long currentDurationNanos) {
            // Cells are never replaced in the map (only created, then changed in place).
            return currentDurationNanos;
        }

        @Override
        public long expireAfterRead(String key, Cell cell, long currentTimeNanos,
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
