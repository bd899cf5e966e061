package io.sluice.core;

import io.sluice.api.Decision;
import io.sluice.api.Limit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A policy's answer to one {@link ApiRequest}. Immutable.
 *
 * <p>{@link #allowed()} is what to do with the request. {@link #decision()} is what the
 * limits decided, shadow ones included: its binding limit (the one that denies, else the
 * one with the least remaining) fills the rate-limit headers and metrics. The two differ
 * only in shadow mode, where a denial is reported ({@link #shadowDenied()}) but the request
 * proceeds.
 */
public final class PolicyDecision {

    private final boolean allowed;
    private final boolean shadowDenied;
    private final boolean unknownKey;
    private final @Nullable Decision decision;
    private final @Nullable String tier;
    private final @Nullable String endpoint;
    private final long cost;
    private final List<Limit> limits;

    PolicyDecision(boolean allowed, boolean shadowDenied, boolean unknownKey, @Nullable Decision decision,
                   @Nullable String tier, @Nullable String endpoint, long cost, List<Limit> limits) {
        this.allowed = allowed;
        this.shadowDenied = shadowDenied;
        this.unknownKey = unknownKey;
        this.decision = decision;
        this.tier = tier;
        this.endpoint = endpoint;
        this.cost = cost;
        this.limits = limits;
    }

    /** Whether the request may proceed. */
    public boolean allowed() {
        return allowed;
    }

    /**
     * Whether the request proceeds only because the limit (or the limiter) that denied it is
     * in shadow mode.
     */
    public boolean shadowDenied() {
        return shadowDenied;
    }

    /** Whether the request carried an API key that no tier knows. */
    public boolean unknownKey() {
        return unknownKey;
    }

    /**
     * What the limits decided, shadow limits included. Empty when the caller was turned away
     * before any limit: an unknown key that the policy rejects, or an anonymous caller when
     * the policy has no anonymous limits.
     */
    public Optional<Decision> decision() {
        return Optional.ofNullable(decision);
    }

    /**
     * The tier whose limits applied ({@code anonymous} for the per-address limits); empty
     * when the caller was turned away.
     */
    public Optional<String> tier() {
        return Optional.ofNullable(tier);
    }

    /** The endpoint rule that matched the request, if any. */
    public Optional<String> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /** The tokens the request costs: the matched endpoint's cost, else 1. */
    public long cost() {
        return cost;
    }

    /** Every limit that applies to the request, enforced and shadow, for the policy headers. */
    public List<Limit> limits() {
        return limits;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PolicyDecision)) {
            return false;
        }
        PolicyDecision other = (PolicyDecision) o;
        return allowed == other.allowed && shadowDenied == other.shadowDenied && unknownKey == other.unknownKey
                && cost == other.cost && Objects.equals(decision, other.decision) && Objects.equals(tier, other.tier)
                && Objects.equals(endpoint, other.endpoint) && limits.equals(other.limits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(allowed, shadowDenied, unknownKey, decision, tier, endpoint, cost, limits);
    }

    @Override
    public String toString() {
        return "PolicyDecision[" + (allowed ? "allowed" : "denied") + (shadowDenied ? ", shadow-denied" : "")
                + (unknownKey ? ", unknown key" : "") + ", tier " + tier + ", endpoint " + endpoint + ", cost " + cost
                + ", " + decision + "]";
    }
}
