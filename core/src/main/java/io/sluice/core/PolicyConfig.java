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
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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

    /** Plans kept at most: enough for every tier and endpoint a fleet really uses together. */
    static final int MAX_CACHED_PLANS = 4_096;

    private final String source;
    private final boolean shadow;
    private final FailurePolicy failurePolicy;
    /** The tiers, then the anonymous limits if any: a plan is cached under its tier's index here. */
    private final List<Tier> tiers;
    private final Map<String, Integer> tierIndexes;
    /** Indexes into {@link #tiers}; -1 when there is none. */
    private final int anonymous;
    private final int unknownKeyTier;
    /** The file's {@code api-keys} list, by key. */
    private final Map<String, ListedKey> listedKeys;
    private final List<EndpointRule> endpoints;
    private final int ipv4Prefix;
    private final int ipv6Prefix;
    private final @Nullable LeasePolicy leasing;
    /**
     * Plans built on first use, per tier and endpoint. Never all of them at load: a file's
     * tiers x endpoints can be millions (1,000 of each kept 321 MB), so memory and load
     * time stay linear in the file's size and at most {@link #MAX_CACHED_PLANS} are kept.
     */
    private final ConcurrentHashMap<Long, Plan> plans = new ConcurrentHashMap<>();

    PolicyConfig(String source, boolean shadow, FailurePolicy failurePolicy, Map<String, Tier> tiers,
                 @Nullable Tier anonymous, @Nullable String unknownKeyTier, Map<String, String> keyTiers,
                 List<EndpointRule> endpoints, int ipv4Prefix, int ipv6Prefix, @Nullable LeasePolicy leasing) {
        this.source = source;
        this.shadow = shadow;
        this.failurePolicy = failurePolicy;
        List<Tier> all = new ArrayList<>(tiers.values());
        if (anonymous != null) {
            all.add(anonymous);
        }
        this.tiers = List.copyOf(all);
        Map<String, Integer> indexes = new HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            indexes.put(all.get(i).name(), i);
        }
        this.tierIndexes = Map.copyOf(indexes);
        this.anonymous = anonymous == null ? -1 : all.size() - 1;
        this.unknownKeyTier = unknownKeyTier == null ? -1 : Objects.requireNonNull(indexes.get(unknownKeyTier));
        Map<String, ListedKey> listed = new HashMap<>();
        keyTiers.forEach((key, tier) -> listed.put(key, new ListedKey(tier)));
        this.listedKeys = Map.copyOf(listed);
        this.endpoints = List.copyOf(endpoints);
        this.ipv4Prefix = ipv4Prefix;
        this.ipv6Prefix = ipv6Prefix;
        this.leasing = leasing;
    }

    /**
     * Reads and checks a policy file (UTF-8).
     *
     * @throws PolicyConfigException listing every problem, each with the file, the line and
     *     the reason, when the file cannot be read, is not valid YAML, or breaks a rule of the format
     */
    public static PolicyConfig load(Path file) {
        return check(file).orThrow();
    }

    /**
     * Checks a policy given as text.
     *
     * @param source the name that error messages give as the file
     * @throws PolicyConfigException listing every problem, each with the source, the line and the reason
     */
    public static PolicyConfig parse(String yaml, String source) {
        return check(yaml, source).orThrow();
    }

    /**
     * Reads a policy file (UTF-8) and finds every problem it has, without throwing: for a
     * {@code check-config} command or an editor. A file that cannot be read is one problem at line 0.
     */
    public static PolicyCheck check(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return new PolicyCheck(null, List.of(new PolicyProblem(file.toString(), 0, "cannot read the file: " + e)));
        }
        return check(text, file.toString());
    }

    /**
     * Finds every problem of a policy given as text, without throwing.
     *
     * @param source the name that problems give as the file
     */
    public static PolicyCheck check(String yaml, String source) {
        return ConfigParser.check(yaml, source);
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

    /**
     * The file's {@code leasing} section: local quota leasing, which a {@link PolicyLimiter}
     * built on this policy uses unless its {@link PolicyLimiterBuilder#guard guard} sets its own;
     * empty when the file has none (no leasing).
     */
    public Optional<LeasePolicy> leasing() {
        return Optional.ofNullable(leasing);
    }

    /** The tier the file's {@code api-keys} list gives this key, if any. */
    Optional<String> listedTierOf(String apiKey) {
        ListedKey listed = listedKeys.get(apiKey);
        return listed == null ? Optional.empty() : Optional.of(listed.tier);
    }

    /**
     * Finds what applies to a request.
     *
     * @param resolvedTier the tier of the request's API key, empty when it has none or it is unknown
     */
    Resolution resolve(ApiRequest request, Optional<String> resolvedTier) {
        PathPattern.RequestPath path = PathPattern.RequestPath.of(request.path());
        int endpoint = endpoints.size();
        for (int i = 0; i < endpoints.size(); i++) {
            if (endpoints.get(i).matches(request.method(), path)) {
                endpoint = i;
                break;
            }
        }
        EndpointRule rule = endpoint < endpoints.size() ? endpoints.get(endpoint) : null;
        Optional<String> apiKey = request.apiKey();
        if (apiKey.isPresent()) {
            // The anonymous limits are no tier a key can name.
            Integer tier = resolvedTier.filter(name -> !name.equals(Tier.ANONYMOUS)).map(tierIndexes::get)
                    .orElse(null);
            if (tier != null) {
                return new Resolution(plan(tier, endpoint), apiKeyStoreKey(apiKey.get()), rule, false);
            }
            // Unknown keys are counted per address, so inventing keys gains nothing.
            return unknownKeyTier < 0
                    ? new Resolution(null, null, rule, true)
                    : new Resolution(plan(unknownKeyTier, endpoint), addressKey(request), rule, true);
        }
        return anonymous < 0
                ? new Resolution(null, null, rule, false)
                : new Resolution(plan(anonymous, endpoint), addressKey(request), rule, false);
    }

    /** The plan of a tier (its index in {@link #tiers}) on an endpoint (its index; the count of endpoints for none). */
    private Plan plan(int tier, int endpoint) {
        long key = (long) tier * (endpoints.size() + 1) + endpoint;
        Plan cached = plans.get(key);
        if (cached != null) {
            return cached;
        }
        Plan plan = Plan.of(tiers.get(tier), endpoint < endpoints.size() ? endpoints.get(endpoint) : null, shadow);
        if (plans.size() < MAX_CACHED_PLANS) {
            plans.putIfAbsent(key, plan);
        }
        return plan;
    }

    /** Every tier, the anonymous limits last if any. */
    List<Tier> tiers() {
        return tiers;
    }

    /** Every endpoint rule, in file order. */
    List<EndpointRule> endpoints() {
        return endpoints;
    }

    /**
     * The store key of a known API key: a listed key's is hashed once, on its first request under
     * this policy; a key only a {@link TierResolver} of your own knows is hashed per request
     * (keeping those would grow with whatever the resolver admits).
     */
    private static String storeKeyOf(ListedKey listed, String apiKey) {
        String known = listed.storeKey;
        if (known == null) {
            // Two threads may both hash it: the same string, written twice.
            known = ClientKeys.forApiKey(apiKey);
            listed.storeKey = known;
        }
        return known;
    }

    private String apiKeyStoreKey(String apiKey) {
        ListedKey listed = listedKeys.get(apiKey);
        return listed == null ? ClientKeys.forApiKey(apiKey) : storeKeyOf(listed, apiKey);
    }

    private String addressKey(ApiRequest request) {
        return ClientKeys.forAddress(request.clientIp(), ipv4Prefix, ipv6Prefix);
    }

    /**
     * A key of the file's {@code api-keys} list: its tier, and its store key once a request used
     * it: a client's requests all hashed (SHA-256) the same key again; the list bounds what is kept.
     */
    private static final class ListedKey {

        final String tier;
        volatile @Nullable String storeKey;

        ListedKey(String tier) {
            this.tier = tier;
        }
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
        List<String> names = tiers.stream().map(Tier::name).filter(name -> !name.equals(Tier.ANONYMOUS)).toList();
        return "PolicyConfig[" + source + ", tiers " + ConfigParser.shown(names) + (anonymous >= 0 ? ", anonymous" : "")
                + ", " + endpoints.size() + " endpoints" + (shadow ? ", shadow" : "")
                + (leasing != null ? ", leasing" : "") + "]";
    }
}
