package com.example.store;

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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

// tag::class[]
/**
 * A store on a map that offers only get, put-if-absent, compare-and-set and remove: each
 * key's state is one {@link KeyState}, encoded, with the instant it expires.
 */
final class MapCasStore implements Store {

    /** The caller's clock decides; one value per key makes a multi-limit check atomic; state expires. */
    private static final StoreCapabilities CAPABILITIES = new StoreCapabilities(false, true, true);

    /** How often, on the store's clock, a request also frees the expired entries of every key. */
    private static final long SWEEP_INTERVAL_MICROS = 1_000_000;

    /** What the map holds for a key: its encoded state, and when all its limits are reset. */
    private record Stored(byte[] state, long expiresAtMicros) {
    }

    private final ConcurrentMap<String, Stored> map = new ConcurrentHashMap<>();
    private final TimeSource clock;
    private final AtomicLong nextSweepMicros = new AtomicLong(Long.MIN_VALUE);
    private volatile boolean closed;

    /** A store deciding with {@code clock}: {@link TimeSource#system()}, or a test's virtual clock. */
    MapCasStore(TimeSource clock) {
        this.clock = clock;
    }
    // end::class[]

    // tag::capabilities[]
    @Override
    public StoreCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        // The algorithms run here, in Java, so custom ones too.
        return true;
    }
    // end::capabilities[]

    // tag::tryAcquire[]
    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreUnavailableException("the map store is closed"));
        }
        sweepIfDue();
        while (true) {
            Stored read = map.get(key);
            // The clock is read after the state: whoever wrote that state read the clock before
            // writing it, so no decision runs at a time earlier than the state's own (on an
            // earlier time a GCRA would count fewer tokens left than the writer did).
            long now = clock.nowMicros();
            Stored stored = live(key, read, now);
            KeyState state = stored == null ? KeyState.empty() : KeyState.decode(stored.state());
            Decision decision = state.tryAcquire(limits, now, cost);
            if (!decision.allowed()) {
                // Nothing was charged, so nothing is written: a denied key costs no memory.
                return CompletableFuture.completedFuture(decision);
            }
            Stored charged = new Stored(state.encode(), state.expiresAtMicros());
            boolean written = stored == null
                    ? map.putIfAbsent(key, charged) == null
                    : map.replace(key, stored, charged);
            if (written) {
                return CompletableFuture.completedFuture(decision);
            }
            // Another request wrote the key since it was read: decide again on what it wrote.
        }
    }
    // end::tryAcquire[]

    // tag::expiry[]
    /** The key's entry as read, or null when it has none or it has expired (which is then removed). */
    private Stored live(String key, Stored stored, long now) {
        if (stored != null && stored.expiresAtMicros() <= now) {
            map.remove(key, stored);
            return null;
        }
        return stored;
    }

    /** At most once a sweep interval, frees every expired entry, also of keys never read again. */
    private void sweepIfDue() {
        long now = clock.nowMicros();
        long due = nextSweepMicros.get();
        if (now >= due && nextSweepMicros.compareAndSet(due, now + SWEEP_INTERVAL_MICROS)) {
            // Removes an entry only if it is still the expired one: a concurrent write wins.
            map.values().removeIf(stored -> stored.expiresAtMicros() <= now);
        }
    }

    /** Whether the map holds an entry for the key, after freeing it if it has expired. */
    boolean holdsEntryFor(String key) {
        return live(key, map.get(key), clock.nowMicros()) != null;
    }
    // end::expiry[]

    @Override
    public void close() {
        closed = true;
        map.clear();
    }
}
