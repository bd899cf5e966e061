package io.sluice.testkit;

import io.sluice.algorithms.Decisions;
import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.StoreCapabilities;
import io.sluice.api.TimeSource;
import io.sluice.api.Transition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The simplest correct store, a map under one lock with one entry per key that lives until
 * all its limits are reset, and the flaws that real stores have had, so that the kit's own
 * tests can show that it passes the one and catches the others.
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
        /** Forgets a key at half its time to live. */
        FORGETS_EARLY,
        /** Ignores expired entries when deciding, but never removes them: memory grows forever. */
        NEVER_FREES,
        /** Writes the key's entry back on every request, a denied one on an unused key too. */
        WRITES_ON_DENIAL,
        /** Keeps a key as long as its shortest-lived limit instead of its longest. */
        EXPIRES_WITH_SHORTEST_LIMIT,
        /** Reads a limit's state past its reset while the key lives, as the same limit's fresh state would not. */
        READS_A_STATE_PAST_ITS_RESET,
        /** Never sees state of its previous format, as a store that moved to a new key schema. */
        IGNORES_PREVIOUS_FORMAT,
        /** None, but a store that rejects state of its previous format, naming the version. */
        REJECTS_PREVIOUS_FORMAT,
        /** Declares that it decides in process, but completes its stages a second later, on another thread. */
        LATE_BUT_IN_PROCESS,
        /** Declares a wait bound, but its tryAcquireAndWait decides on a state of its own, not the stages'. */
        WAITS_ON_ANOTHER_STATE
    }

    /** One key's states, by limit name, when all of them are reset, and whether the previous format wrote them. */
    private record Entry(Map<String, LimitState> states, long expiresAtMicros, boolean previousFormat) {

        Entry(Map<String, LimitState> states, long expiresAtMicros) {
            this(states, expiresAtMicros, false);
        }
    }

    /** One limit's state and the reset of the charge that wrote it, after which it is the fresh state. */
    private record LimitState(long[] state, long expiresAtMicros) {
    }

    private final TimeSource clock;
    private final Flaw flaw;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private volatile boolean closed;

    MapStore(TimeSource clock, Flaw flaw) {
        this.clock = clock;
        this.flaw = flaw;
    }

    @Override
    public StoreCapabilities capabilities() {
        if (flaw == Flaw.WAITS_ON_ANOTHER_STATE) {
            return new StoreCapabilities(false, true, true, false, false, Duration.ofSeconds(1));
        }
        return flaw == Flaw.LATE_BUT_IN_PROCESS ? new StoreCapabilities(false, true, true, false, true)
                : new StoreCapabilities(false, true, true);
    }

    @Override
    public Decision tryAcquireAndWait(String key, List<Limit> limits, long cost) {
        String waited = flaw == Flaw.WAITS_ON_ANOTHER_STATE ? key + "#waited" : key;
        return tryAcquire(waited, limits, cost).toCompletableFuture().join();
    }

    @Override
    public boolean supports(Algorithm algorithm) {
        return true;
    }

    @Override
    public CompletionStage<Decision> tryAcquire(String key, List<Limit> limits, long cost) {
        Entry entry = entries.get(key);
        if (entry != null && entry.previousFormat() && flaw == Flaw.REJECTS_PREVIOUS_FORMAT) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "state of format version 1 is no longer read; this store reads version 2"));
        }
        if (flaw == Flaw.RACY) {
            return CompletableFuture.completedFuture(decide(key, limits, cost));
        }
        if (flaw == Flaw.LATE_BUT_IN_PROCESS) {
            return CompletableFuture.supplyAsync(() -> {
                synchronized (this) {
                    return decide(key, limits, cost);
                }
            }, CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS));
        }
        synchronized (this) {
            return CompletableFuture.completedFuture(decide(key, limits, cost));
        }
    }

    private Decision decide(String key, List<Limit> limits, long cost) {
        long now = clock.nowMicros();
        freeExpired(now);
        Entry entry = entries.get(key);
        Map<String, LimitState> states = new HashMap<>();
        if (entry != null && entry.expiresAtMicros() > now) {
            entry.states().forEach((name, held) -> {
                if (held.expiresAtMicros() > now || flaw == Flaw.READS_A_STATE_PAST_ITS_RESET) {
                    states.put(name, held);
                }
            });
        }
        List<Transition> transitions = new ArrayList<>();
        for (Limit limit : limits) {
            LimitState held = states.get(limit.name());
            transitions.add(limit.algorithm().transition(held == null ? null : held.state(), now, limit, cost));
        }
        if (flaw == Flaw.RACY) {
            // Widens the window between reading and writing, as a network round trip would.
            LockSupport.parkNanos(50_000);
        }
        Decision decision = Decisions.combine(limits, transitions);
        Map<String, LimitState> written = new HashMap<>(states);
        long longest = entry != null && entry.expiresAtMicros() > now ? entry.expiresAtMicros() : now;
        long shortest = Long.MAX_VALUE;
        boolean changed = false;
        for (int i = 0; i < limits.size(); i++) {
            Transition transition = transitions.get(i);
            if (decision.allowed() || (flaw == Flaw.CHARGES_ON_DENIAL && transition.allowed())) {
                long expiresAt = now + transition.resetAfterMicros();
                written.put(limits.get(i).name(), new LimitState(transition.state(), expiresAt));
                longest = Math.max(longest, expiresAt);
                shortest = Math.min(shortest, expiresAt);
                changed = true;
            }
        }
        if (changed) {
            entries.put(key, new Entry(written, switch (flaw) {
                case FORGETS_EARLY -> now + (longest - now) / 2;
                case EXPIRES_WITH_SHORTEST_LIMIT -> shortest;
                default -> longest;
            }));
        } else if (flaw == Flaw.WRITES_ON_DENIAL) {
            // As a compare-and-set store that writes back what it read, with a fresh time to live.
            long ttl = limits.stream().mapToLong(Limit::periodMicros).max().orElseThrow();
            entries.put(key, new Entry(written, now + ttl));
        }
        return decision;
    }

    /** Removes the entries whose limits are all reset: what a back end's expiry does. */
    private void freeExpired(long now) {
        if (flaw != Flaw.NEVER_FREES) {
            entries.values().removeIf(entry -> entry.expiresAtMicros() <= now);
        }
    }

    /** The kit's probe: whether the map holds an entry for the key, once expired ones are freed. */
    synchronized boolean holdsEntryFor(String key) {
        freeExpired(clock.nowMicros());
        return entries.containsKey(key);
    }

    /** Puts state of a previous format: this store has had one format, so it is this one. */
    synchronized void write(String key, List<HeldState> states) {
        if (flaw == Flaw.IGNORES_PREVIOUS_FORMAT) {
            return;
        }
        Map<String, LimitState> written = new HashMap<>();
        long expiresAt = Long.MIN_VALUE;
        for (HeldState held : states) {
            written.put(held.limit().name(), new LimitState(held.state(), held.expiresAtMicros()));
            expiresAt = Math.max(expiresAt, held.expiresAtMicros());
        }
        entries.put(key, new Entry(written, expiresAt, true));
    }

    @Override
    public void close() {
        closed = true;
        entries.clear();
    }

    boolean isClosed() {
        return closed;
    }
}
