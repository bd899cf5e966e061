package io.sluice.testkit;

import io.sluice.algorithms.Decisions;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.TimeSource;
import io.sluice.api.Transition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The simplest correct store, a map under one lock, and the flaws that real stores have had,
 * so that the kit's own tests can show that it passes the one and catches the others.
 */
final class MapStore implements Store {

    /** A way to be wrong. */
    enum Flaw {
        /** None: the store is correct. */
        NONE,
        /** Charges the limits that admitted a request that another limit denied. */
        CHARGES_ON_DENIAL,
        /** Reads, decides and writes without a lock (a read-modify-write race). */
        RACY,
        /** Forgets a state at half its time to live. */
        FORGETS_EARLY
    }

    private record Held(long[] state, long expiresAtMicros) {
    }

    private final TimeSource clock;
    private final Flaw flaw;
    private final Map<String, Map<String, Held>> keys = new ConcurrentHashMap<>();
    private volatile boolean closed;

    MapStore(TimeSource clock, Flaw flaw) {
        this.clock = clock;
        this.flaw = flaw;
    }

    @Override
    public StoreCapabilities capabilities() {
        return new StoreCapabilities(false, true, true);
    }


    @Override

    public boolean supports(Algorithm algorithm) {

        return true;

    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        if (flaw == Flaw.RACY) {
            return CompletableFuture.completedFuture(decide(key, limits, cost));
        }
        synchronized (this) {
            return CompletableFuture.completedFuture(decide(key, limits, cost));
        }
    }

    private Decision decide(String key, List<Limit> limits, long cost) {
        long now = clock.nowMicros();
        Map<String, Held> held = keys.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
        List<Transition> transitions = new ArrayList<>();
        for (Limit limit : limits) {
            Held state = held.get(limit.name());
            boolean live = state != null && state.expiresAtMicros() > now;
            transitions.add(limit.algorithm().transition(live ? state.state() : null, now, limit, cost));
        }
        if (flaw == Flaw.RACY) {
            // Widens the window between reading and writing, as a network round trip would.
            LockSupport.parkNanos(50_000);
        }
        Decision decision = Decisions.combine(limits, transitions);
        for (int i = 0; i < limits.size(); i++) {
            Transition transition = transitions.get(i);
            if (decision.allowed() || (flaw == Flaw.CHARGES_ON_DENIAL && transition.allowed())) {
                long ttl = flaw == Flaw.FORGETS_EARLY
                        ? transition.resetAfterMicros() / 2
                        : transition.resetAfterMicros();
                held.put(limits.get(i).name(), new Held(transition.state(), now + ttl));
            }
        }
        return decision;
    }

    @Override
    public synchronized CompletionStage<Boolean> holdsState(String key, Limit limit) {
        Held state = keys.getOrDefault(key, Map.of()).get(limit.name());
        return CompletableFuture.completedFuture(state != null && state.expiresAtMicros() > clock.nowMicros());
    }

    @Override
    public void close() {
        closed = true;
        keys.clear();
    }

    boolean isClosed() {
        return closed;
    }
}
