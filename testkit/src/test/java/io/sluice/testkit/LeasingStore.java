package io.sluice.testkit;

import io.sluice.algorithms.KeyState;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Lease;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.TimeSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The simplest correct leasing store, a {@link KeyState} per key under one lock (never
 * freed: only the kit's lease checks run on it), and the leasing flaws a store could have, so
 * that the kit's own tests can show that its lease checks pass the one and catch the others.
 */
final class LeasingStore implements Store {

    /** A way to be wrong. */
    enum Flaw {
        /** None: the store is correct. */
        NONE,
        /** Reads, leases and writes a key's state without a lock (a read-modify-write race). */
        RACY_LEASE,
        /** Gives tokens back to whatever window is current, not only the lease's own. */
        GIVES_BACK_TO_ANY_WINDOW
    }

    private final TimeSource clock;
    private final Flaw flaw;
    private final Map<String, byte[]> states = new ConcurrentHashMap<>();

    LeasingStore(TimeSource clock, Flaw flaw) {
        this.clock = clock;
        this.flaw = flaw;
    }

    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(false, true, false, true);
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return true;
    }

    @Override
    public synchronized CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        KeyState state = read(key);
        Decision decision = state.tryAcquire(limits, clock.nowMicros(), cost);
        states.put(key, state.encode());
        return CompletableFuture.completedFuture(decision);
    }

    @Override
    public CompletionStage<Lease> lease(String key, List<Limit> limits, long maxTokens) {
        try {
            if (flaw == Flaw.RACY_LEASE) {
                return CompletableFuture.completedFuture(leaseUnlocked(key, limits, maxTokens));
            }
            synchronized (this) {
                return CompletableFuture.completedFuture(leaseUnlocked(key, limits, maxTokens));
            }
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private Lease leaseUnlocked(String key, List<Limit> limits, long maxTokens) {
        KeyState state = read(key);
        Lease lease = state.lease(limits, clock.nowMicros(), maxTokens);
        if (flaw == Flaw.RACY_LEASE) {
            // Widens the window between reading and writing, as a network round trip would.
            LockSupport.parkNanos(50_000);
        }
        states.put(key, state.encode());
        return lease;
    }

    @Override
    public synchronized CompletionStage<Void> giveBack(String key, List<Limit> limits, Lease lease, long unusedTokens) {
        if (unusedTokens > lease.tokens()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "cannot give back " + unusedTokens + " tokens of a lease of " + lease.tokens()));
        }
        KeyState state = read(key);
        long now = clock.nowMicros();
        state.giveBack(limits, now, flaw == Flaw.GIVES_BACK_TO_ANY_WINDOW ? now : lease.takenAtMicros(), unusedTokens);
        states.put(key, state.encode());
        return CompletableFuture.completedFuture(null);
    }

    boolean holdsEntryFor(String key) {
        return states.containsKey(key);
    }

    private KeyState read(String key) {
        byte[] bytes = states.get(key);
        return bytes == null ? KeyState.empty() : KeyState.decode(bytes);
    }

    @Override
    public void close() {
        states.clear();
    }
}
