package io.sluice.core;

import io.sluice.api.Limit;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The store calls that decide a request of one tier on one endpoint, in order: the
 * client's enforced limits (one call, all-or-nothing), the endpoint's enforced global
 * limits (a second call on the endpoint's key), then the same two for the limits in
 * shadow mode. Computed once per configuration; immutable.
 *
 * @param endpoint the matched endpoint rule, or {@code null} when none matched
 * @param limits every limit of the request, enforced and shadow, for headers
 */
record Plan(Tier tier, @Nullable EndpointRule endpoint, long cost, List<Step> steps, List<Limit> limits) {

    /**
     * One store call.
     *
     * @param globalKey the endpoint's key for its global limits; {@code null} for the client's key
     */
    record Step(@Nullable String globalKey, List<Limit> limits, boolean shadow) {
    }

    static Plan of(Tier tier, @Nullable EndpointRule endpoint, boolean limiterInShadow) {
        List<LimitRule> client = new ArrayList<>(tier.limits());
        List<LimitRule> global = new ArrayList<>();
        if (endpoint != null) {
            client.addAll(endpoint.perKey());
            global.addAll(endpoint.global());
        }
        String globalKey = endpoint == null ? null : endpoint.globalKey();
        List<Step> steps = new ArrayList<>();
        addStep(steps, null, client, false, limiterInShadow);
        addStep(steps, globalKey, global, false, limiterInShadow);
        addStep(steps, null, client, true, limiterInShadow);
        addStep(steps, globalKey, global, true, limiterInShadow);
        List<Limit> limits = new ArrayList<>();
        client.forEach(rule -> limits.add(rule.limit()));
        global.forEach(rule -> limits.add(rule.limit()));
        return new Plan(tier, endpoint, endpoint == null ? 1 : endpoint.cost(), List.copyOf(steps),
                List.copyOf(limits));
    }

    private static void addStep(List<Step> steps, @Nullable String globalKey, List<LimitRule> rules, boolean shadow,
                                boolean limiterInShadow) {
        List<Limit> limits = new ArrayList<>();
        for (LimitRule rule : rules) {
            if ((rule.shadow() || limiterInShadow) == shadow) {
                limits.add(rule.limit());
            }
        }
        if (!limits.isEmpty()) {
            steps.add(new Step(globalKey, List.copyOf(limits), shadow));
        }
    }
}
