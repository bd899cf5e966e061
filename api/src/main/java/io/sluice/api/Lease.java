package io.sluice.api;

import java.util.Objects;

/**
 * A batch of tokens that one instance took from a key's limits at once, to spend locally
 * without a store call per request. The tokens were charged to every limit in the store when
 * the lease was taken, so spending them can never over-admit. Immutable.
 *
 * @param tokens how many tokens were taken from every limit; 0 when a limit had none to give
 * @param takenAtMicros the store's clock when they were taken, in microseconds since the epoch;
 *     {@link Store#giveBack} uses it to tell whether unused tokens can still be returned
 * @param decision the store's answer for a request of {@code tokens} tokens (when
 *     {@code tokens > 0}: remaining and reset after the charge), or for one token when none
 *     was granted (the denial, with its {@code retryAfter})
 */
public record Lease(long tokens, long takenAtMicros, Decision decision) {

    /**
     * Checks the fields.
     *
     * @throws IllegalArgumentException when {@code tokens} is negative, or positive with a
     *     decision that was not admitted
     */
    public Lease {
        Objects.requireNonNull(decision, "decision");
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must not be negative: " + tokens);
        }
        if (tokens > 0 && !decision.allowed()) {
            throw new IllegalArgumentException("a lease of " + tokens + " tokens needs an admitted decision: "
                    + decision);
        }
    }
}
