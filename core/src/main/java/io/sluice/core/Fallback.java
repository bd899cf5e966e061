package io.sluice.core;

import io.sluice.api.Decision;
import io.sluice.api.FailurePolicy;
import io.sluice.api.InstanceCount;
import io.sluice.api.Limit;
import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import io.sluice.store.local.LocalStore;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Decides in this process while the shared store cannot: each {@link FailurePolicy#FALLBACK}
 * limit is divided by the number of instances (configured, else told by a store that is an
 * {@link InstanceCount}, else 1) and enforced on an in-process local store, so that the
 * instances together admit about the limit during an outage. Limits of the request that
 * fail open impose nothing here.
 */
final class Fallback implements AutoCloseable {

    /** One limit's share at one number of instances. */
    private record Share(Limit limit, int instances) {
    }

    private final Store shared;
    private final int configuredInstances;
    private final Store local;
    private final ConcurrentMap<Share, Limit> shares = new ConcurrentHashMap<>();

    /**
     * @param configuredInstances the number of instances, or 0 to ask the shared store
     */
    Fallback(Store shared, int configuredInstances, TimeSource clock) {
        this.shared = shared;
        this.configuredInstances = configuredInstances;
        this.local = LocalStore.builder().clockForTesting(clock).build();
    }

    /** The number of instances each limit is divided by now, and where it comes from. */
    int instances() {
        if (configuredInstances > 0) {
            return configuredInstances;
        }
        if (shared instanceof InstanceCount) {
            OptionalInt told = ((InstanceCount) shared).instances();
            if (told.isPresent() && told.getAsInt() > 0) {
                return told.getAsInt();
            }
        }
        return 1;
    }

    /** Whether the number of instances is known; when not, each instance enforces whole limits. */
    boolean knowsInstances() {
        return configuredInstances > 0 || (shared instanceof InstanceCount
                && ((InstanceCount) shared).instances().orElse(0) > 0);
    }

    /**
     * Charges this instance's shares with a request the store admitted, so that a fallback
     * starts from what this instance has left of its share, not from a full one: the store and
     * the fallback then admit about the limit together, instead of up to twice. A share that
     * is spent (this instance took more than its part) is left as it is.
     */
    void charge(String key, List<Limit> limits, long cost, FailurePolicy defaultPolicy) {
        if (!fallsBack(limits, defaultPolicy)) {
            // Checked first so that an admission with no fallback limit allocates nothing.
            return;
        }
        this.local.tryAcquire(key, shares(limits, defaultPolicy), cost);
    }

    /** Decides a request whose strictest failure policy is {@link FailurePolicy#FALLBACK}. */
    Decision decide(String key, List<Limit> limits, long cost, FailurePolicy defaultPolicy) {
        List<Limit> local = shares(limits, defaultPolicy);
        Decision decision;
        try {
            decision = this.local.tryAcquire(key, local, cost).toCompletableFuture().join();
        } catch (CompletionException e) {
            // Only a closed guard's local store fails: nothing may be admitted any more.
            return Decision.storeUnavailable(limits.get(0), false);
        }
        Limit binding = limits.stream().filter(limit -> limit.name().equals(decision.binding().name()))
                .findFirst().orElseThrow();
        return Decision.fallback(binding, decision.allowed(), decision.remaining(),
                decision.resetAfter().toNanos() / 1_000,
                decision.retryAfter().map(wait -> wait.toNanos() / 1_000).orElse(-1L));
    }

    private static boolean fallsBack(List<Limit> limits, FailurePolicy defaultPolicy) {
        for (int i = 0; i < limits.size(); i++) {
            if (limits.get(i).failurePolicy().orElse(defaultPolicy) == FailurePolicy.FALLBACK) {
                return true;
            }
        }
        return false;
    }

    /** The shares of the limits that fall back, at the current number of instances. */
    private List<Limit> shares(List<Limit> limits, FailurePolicy defaultPolicy) {
        int instances = instances();
        List<Limit> local = new ArrayList<>(limits.size());
        for (Limit limit : limits) {
            if (limit.failurePolicy().orElse(defaultPolicy) == FailurePolicy.FALLBACK) {
                local.add(shares.computeIfAbsent(new Share(limit, instances), Fallback::divide));
            }
        }
        return local;
    }

    /** A limit's share: its permits and burst divided by the instances, at least 1, under the same name. */
    private static Limit divide(Share share) {
        Limit limit = share.limit();
        int instances = share.instances();
        Limit divided = Limit.of(limit.algorithm(), Math.max(1, limit.permits() / instances), limit.period());
        if (limit.burst() != limit.permits()) {
            divided = divided.withBurst(Math.max(1, limit.burst() / instances));
        }
        return divided.named(limit.name());
    }

    @Override
    public void close() {
        local.close();
    }
}
