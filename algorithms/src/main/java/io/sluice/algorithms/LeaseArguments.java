package io.sluice.algorithms;

import io.sluice.api.Lease;
import io.sluice.api.Limit;
import java.util.List;
import java.util.Objects;

/**
 * The checks a store makes on the arguments of {@link io.sluice.api.Store#lease} and
 * {@link io.sluice.api.Store#giveBack} before it sends them elsewhere (to Redis, to a grid
 * member), so that bad input is an {@link IllegalArgumentException} naming it at the caller,
 * never a store failure: the same rules {@link KeyState#lease} and {@link KeyState#giveBack}
 * apply where they run.
 */
public final class LeaseArguments {

    private LeaseArguments() {
    }

    /**
     * Checks a lease's arguments.
     *
     * @throws IllegalArgumentException when {@code limits} is empty, a limit cannot be leased
     *     ({@link Leasing#supports}) or {@code maxTokens} is below 1
     */
    public static void checkLease(List<Limit> limits, long maxTokens) {
        checkLimits(limits);
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1: " + maxTokens);
        }
    }

    /**
     * Checks a give-back's arguments.
     *
     * @throws IllegalArgumentException when {@code limits} is empty, a limit cannot be leased,
     *     or {@code unusedTokens} is negative or more than the lease's tokens
     */
    public static void checkGiveBack(List<Limit> limits, Lease lease, long unusedTokens) {
        checkLimits(limits);
        Objects.requireNonNull(lease, "lease");
        if (unusedTokens < 0 || unusedTokens > lease.tokens()) {
            throw new IllegalArgumentException("cannot give back " + unusedTokens + " tokens of a lease of "
                    + lease.tokens());
        }
    }

    private static void checkLimits(List<Limit> limits) {
        Objects.requireNonNull(limits, "limits");
        if (limits.isEmpty()) {
            throw new IllegalArgumentException("need at least one limit");
        }
        for (Limit limit : limits) {
            Leasing.of(limit);
        }
    }
}
