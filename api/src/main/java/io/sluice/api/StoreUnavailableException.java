package io.sluice.api;

/**
 * A store could not decide: it was unreachable, timed out or answered with an error.
 * Stores complete their futures with this exception (or any other); a
 * {@link RateLimiter} turns it into a {@link Decision.Reason#STORE_UNAVAILABLE}
 * decision and never reports it as "rate limited".
 */
public final class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates an exception with a message and its cause. */
    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Creates an exception with a message. */
    public StoreUnavailableException(String message) {
        super(message);
    }
}
