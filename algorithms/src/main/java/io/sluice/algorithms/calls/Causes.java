package io.sluice.algorithms.calls;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A failed call's cause, out of the wrappers a stage or a future puts around it. Public so that
 * the store guard ({@code sluice-core}) and the grid stores' calls read failures alike; applications
 * have no use for it.
 */
public final class Causes {

    private Causes() {
    }

    /**
     * {@code failure} without its {@link CompletionException} and {@link ExecutionException}
     * wrappers (one that has no cause is kept: it is the failure).
     */
    public static Throwable of(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
