package io.sluice.core;

import io.sluice.api.FailurePolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A checked, immutable rate-limiting policy read from a YAML file: tiers of API keys,
 * the anonymous callers' limits per IP, and endpoints with a cost and limits of their own.
 * The format is documented in docs/configuration.md.
 *
 * <pre>{@code
 * PolicyConfig config = PolicyConfig.load(Path.of("sluice.yaml"));
 * }</pre>
 *
 * <p>Use {@link ReloadingPolicyConfig} to pick up changes of the file without a restart.
 */
public final class PolicyConfig {

    private final String source;
    private final boolean shadow;
    private final FailurePolicy failurePolicy;
    private final Map<String, Tier> tiers;
    private final @Nullable Tier anonymous;
    private final @Nullable Tier unknownKeyTier;
    private final Map<String, String> keyTiers;
    private final List<EndpointRule> endpoints;
    private final int ipv4Prefix;
    private final int ipv6Prefix;
    /** Per tier name (and {@link Tier#ANONYMOUS}): the plan of each endpoint, then of no endpoint. */
    private final Map<String, Plan[]> plans;

    PolicyConfig(String source, boolean shadow, FailurePolicy failurePolicy, Map<String, Tier> tiers,
                 @Nullable Tier anonymous, @Nullable String unknownKeyTier, Map<String, String> keyTiers,
                 List<EndpointRule> endpoints, int ipv4Prefix, int ipv6Prefix) {
        this.source = source;
        this.shadow = shadow;
        this.failurePolicy = failurePolicy;
        this.tiers = Map.copyOf(tiers);
        this.anonymous = anonymous;
        this.unknownKeyTier = unknownKeyTier == null ? null
                : unknownKeyTier.equals(Tier.ANONYMOUS) ? anonymous : tiers.get(unknownKeyTier);
        this.keyTiers = Map.copyOf(keyTiers);
        this.endpoints = List.copyOf(endpoints);
        this.ipv4Prefix = ipv4Prefix;
        this.ipv6Prefix = ipv6Prefix;
        Map<String, Plan[]> plansByTier = new HashMap<>();
        List<Tier> all = new ArrayList<>(tiers.values());
        if (anonymous != null) {
            all.add(anonymous);
        }
        for (Tier tier : all) {
            Plan[] byEndpoint = new Plan[endpoints.size() + 1];
            for (int i = 0; i < endpoints.size(); i++) {
                byEndpoint[i] = Plan.of(tier, endpoints.get(i), shadow);
            }
            byEndpoint[endpoints.size()] = Plan.of(tier, null, shadow);
            plansByTier.put(tier.name(), byEndpoint);
        }
        this.plans = Map.copyOf(plansByTier);
    }

    /**
     * Reads and checks a policy file (UTF-8).
     *
     * @throws PolicyConfigException naming the file, the line and the reason when the file
     *     cannot be read, is not valid YAML, or breaks a rule of the format
     */
    public static PolicyConfig load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new PolicyConfigException(file.toString(), 0, "cannot read the file: " + e, e);
        }
        return parse(text, file.toString());
    }

    /**
     * Checks a policy given as text.
     *
     * @param source the name that error messages give as the file
     * @throws PolicyConfigException naming the source, the line and the reason
     */
    public static PolicyConfig parse(String yaml, String source) {
        return ConfigParser.parse(yaml, source);
    }

    /** The file this policy was read from. */
    public String source() {
        return source;
    }

    /** Whether the whole limiter is in shadow mode: it decides and reports, never denies. */
    public boolean shadow() {
        return shadow;
    }

    /** What is answered when the store cannot decide. */
    public FailurePolicy failurePolicy() {
        return failurePolicy;
    }

    /** The tier the file's {@code api-keys} list gives this key, if any. */
    Optional<String> listedTierOf(String apiKey) {
        return Optional.ofNullable(keyTiers.get(apiKey));
    }

    /**
     * Finds what applies to a request.
     *
     * @param resolvedTier the tier of the request's API key, empty when it has none or it is unknown
     */
    Resolution resolve(ApiRequest request, Optional<String> resolvedTier) {
        List<String> segments = PathPattern.normalize(request.path());
        int endpoint = endpoints.size();
        for (int i = 0; i < endpoints.size(); i++) {
            if (endpoints.get(i).matches(request.method(), segments)) {
                endpoint = i;
                break;
            }
        }
        EndpointRule rule = endpoint < endpoints.size() ? endpoints.get(endpoint) : null;
        Optional<String> apiKey = request.apiKey();
        if (apiKey.isPresent()) {
            Tier tier = resolvedTier.map(tiers::get).orElse(null);
            if (tier != null) {
                return new Resolution(plan(tier, endpoint), ClientKeys.forApiKey(apiKey.get()), rule,
                        false);
            }
            // Unknown keys are counted per address, so inventing keys gains nothing.
            return unknownKeyTier == null
                    ? new Resolution(null, null, rule, true)
                    : new Resolution(plan(unknownKeyTier, endpoint), addressKey(request), rule, true);
        }
        return anonymous == null
                ? new Resolution(null, null, rule, false)
                : new Resolution(plan(anonymous, endpoint), addressKey(request), rule, false);
    }

    /** The plan of a tier of this policy on the endpoint at {@code endpoint} (or none at their count). */
    private Plan plan(Tier tier, int endpoint) {
        Plan[] byEndpoint = plans.get(tier.name());
        if (byEndpoint == null) {
            throw new IllegalStateException("no plans for tier '" + tier.name() + "' in " + source);
        }
        return byEndpoint[endpoint];
    }

    /** Every plan, for checks at load. */
    List<Plan> plans() {
        List<Plan> all = new ArrayList<>();
        plans.values().forEach(byEndpoint -> all.addAll(List.of(byEndpoint)));
        return all;
    }

    private String addressKey(ApiRequest request) {
        return ClientKeys.forAddress(request.clientIp(), ipv4Prefix, ipv6Prefix);
    }

    /**
     * What applies to one request.
     *
     * @param plan the store calls to make; {@code null} when the caller is rejected outright
     *     (an unknown key that the policy rejects, or an anonymous caller and no anonymous limits)
     * @param clientKey the store key of the client; {@code null} when rejected
     * @param endpoint the endpoint rule that matched, or {@code null}
     * @param unknownKey whether the request carried an API key that no tier knows
     */
    record Resolution(@Nullable Plan plan, @Nullable String clientKey, @Nullable EndpointRule endpoint,
                      boolean unknownKey) {
    }

    @Override
    public String toString() {
        return "PolicyConfig[" + source + ", tiers " + tiers.keySet() + (anonymous != null ? ", anonymous" : "")
                + ", " + endpoints.size() + " endpoints" + (shadow ? ", shadow" : "") + "]";
    }
}
