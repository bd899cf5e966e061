package io.sluice.core;

import io.sluice.api.Decision;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs a request's {@link Plan}: one store call per step, in order, stopping at the first
 * denial. The client's limits are one call (all-or-nothing in the store). An endpoint's
 * global limits live under another key, so they are a second call made only once the
 * client's limits admitted the request: if the global limits then deny, the client's
 * charge stays (over-counting the client, never over-admitting; see docs/configuration.md).
 * Each call goes through the {@link GuardedStore}, the same chain as the
 * {@link io.sluice.api.RateLimiter}'s, which answers store failures by each limit's failure
 * policy (the policy file gives every limit one). A request is decided on the configuration
 * read at its start from end to end, whatever a reload swaps in meanwhile.
 */
final class StorePolicyLimiter implements PolicyLimiter {

    private static final System.Logger LOGGER = System.getLogger(PolicyLimiter.class.getName());
    /** Longer API keys are unknown keys, never looked up. */
    static final int MAX_API_KEY_LENGTH = 1_024;

    private final Supplier<PolicyConfig> config;
    private final GuardedStore store;
    private final @Nullable TierResolver tierResolver;
    private final ThrottledLog resolverFailures = new ThrottledLog(LOGGER);

    StorePolicyLimiter(Supplier<PolicyConfig> config, GuardedStore store, @Nullable TierResolver tierResolver) {
        this.config = config;
        this.store = store;
        this.tierResolver = tierResolver;
        if (!store.capabilities().atomicMultiLimit()) {
            LOGGER.log(System.Logger.Level.WARNING, "store {0} does not decide the limits of a key atomically: "
                    + "concurrent requests of one client may be charged on some of its limits only", store);
        }
    }

    @Override
    public void close() {
        store.release();
    }

    /**
     * Decides on the calling thread, step by step, each through the store's own wait
     * ({@link GuardedStore#tryAcquireAndWait}): as {@link io.sluice.api.RateLimiter#decide}
     * waits, without the stages and thread hand-offs of {@link #decideAsync}.
     */
    @Override
    public PolicyDecision decide(ApiRequest request) {
        PolicyConfig policy = config.get();
        PolicyConfig.Resolution resolution = resolve(request, policy);
        Plan plan = resolution.plan();
        if (plan == null) {
            return unplanned(policy, resolution);
        }
        Decision tightest = null;
        for (Plan.Step step : plan.steps()) {
            Decision stepDecision = store.tryAcquireAndWait(key(step, resolution), step.limits(), plan.cost(),
                    step.shadow());
            if (!stepDecision.allowed()) {
                return denied(step, resolution, stepDecision);
            }
            tightest = tighter(tightest, stepDecision);
        }
        return decision(true, false, resolution, tightest);
    }

    @Override
    public CompletionStage<PolicyDecision> decideAsync(ApiRequest request) {
        PolicyConfig policy = config.get();
        PolicyConfig.Resolution resolution = resolve(request, policy);
        return resolution.plan() == null ? CompletableFuture.completedFuture(unplanned(policy, resolution))
                : run(resolution, 0, null);
    }

    private PolicyConfig.Resolution resolve(ApiRequest request, PolicyConfig policy) {
        Objects.requireNonNull(request, "request");
        Optional<String> tier = request.apiKey().flatMap(key -> tierOf(key, policy));
        return policy.resolve(request, tier);
    }

    /**
     * The decision of a request rejected outright (an unknown key that the policy rejects, or an
     * anonymous caller and no anonymous limits), which no store is asked for: admitted only in shadow mode.
     */
    private static PolicyDecision unplanned(PolicyConfig policy, PolicyConfig.Resolution resolution) {
        EndpointRule endpoint = resolution.endpoint();
        boolean allowed = policy.shadow();
        return new PolicyDecision(allowed, allowed, resolution.unknownKey(), null, null,
                endpoint == null ? null : endpoint.name(), endpoint == null ? 1 : endpoint.cost(), List.of());
    }

    private Optional<String> tierOf(String apiKey, PolicyConfig policy) {
        if (apiKey.length() > MAX_API_KEY_LENGTH) {
            // No registry holds such a key; hashing or looking up megabytes per request would be an attack surface.
            return Optional.empty();
        }
        if (tierResolver == null) {
            return policy.listedTierOf(apiKey);
        }
        try {
            return Objects.requireNonNull(tierResolver.tierOf(apiKey), "TierResolver answered null");
        } catch (RuntimeException e) {
            resolverFailures.log(() -> "tier resolver failed; keys are treated as unknown meanwhile", e);
            return Optional.empty();
        }
    }

    private CompletionStage<PolicyDecision> run(PolicyConfig.Resolution resolution, int index,
                                                @Nullable Decision tightest) {
        // Run only for a resolution with a plan.
        Plan plan = Objects.requireNonNull(resolution.plan(), "plan");
        if (index == plan.steps().size()) {
            return CompletableFuture.completedFuture(decision(true, false, resolution, tightest));
        }
        Plan.Step step = plan.steps().get(index);
        return store.tryAcquire(key(step, resolution), step.limits(), plan.cost(), step.shadow())
                .thenCompose(stepDecision -> stepDecision.allowed()
                        ? run(resolution, index + 1, tighter(tightest, stepDecision))
                        : CompletableFuture.completedFuture(denied(step, resolution, stepDecision)));
    }

    /** The store key of a step: its endpoint's global key, else the client's, which a resolution with a plan has. */
    private static String key(Plan.Step step, PolicyConfig.Resolution resolution) {
        return step.globalKey() != null ? step.globalKey()
                : Objects.requireNonNull(resolution.clientKey(), "clientKey");
    }

    /** The request's decision once {@code step} denied it: a shadow step reports its denial, and admits. */
    private static PolicyDecision denied(Plan.Step step, PolicyConfig.Resolution resolution, Decision stepDecision) {
        return decision(step.shadow(), step.shadow(), resolution, stepDecision);
    }

    /**
     * The decision that fills the headers among admitted steps: a store failure first (so
     * that it shows, fallback or not), else the one with the least remaining, the earlier on ties.
     */
    private static Decision tighter(@Nullable Decision current, Decision next) {
        if (current == null) {
            return next;
        }
        if (storeFailed(current)) {
            return current;
        }
        if (storeFailed(next)) {
            return next;
        }
        return next.remaining() < current.remaining() ? next : current;
    }

    private static boolean storeFailed(Decision decision) {
        return decision.reason() == Decision.Reason.STORE_UNAVAILABLE || decision.reason() == Decision.Reason.FALLBACK;
    }

    private static PolicyDecision decision(boolean allowed, boolean shadowDenied, PolicyConfig.Resolution resolution,
                                           @Nullable Decision decision) {
        Plan plan = Objects.requireNonNull(resolution.plan(), "plan");
        return new PolicyDecision(allowed, shadowDenied, resolution.unknownKey(), decision, plan.tier().name(),
                plan.endpoint() == null ? null : plan.endpoint().name(), plan.cost(), plan.limits());
    }
}
