package io.sluice.algorithms;

import io.sluice.api.Algorithm;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import org.jspecify.annotations.Nullable;

/**
 * A built-in algorithm, whose transition can leave an admission's new state unbuilt: a
 * denial read ({@link KeyState#denial}) and the first pass over a request's several limits
 * need only the figures, and building the state allocates it (a sliding log's copies the log).
 *
 * <p>Why each builds its {@link Transition} in one place ({@link Transition#of}) and a denial
 * read asks for its {@link #denial}: the JIT (C2, JDK 17) removes a transition only if one
 * allocation made it and it is read where it is made. Built on several branches, or returned
 * through a call that sees several algorithms, it is allocated (48 bytes per limit per
 * decision); read inside {@link #denial}, which the JIT compiles for each algorithm, a denial
 * allocates only its {@link Decision}. That needs the transition inlined too: each stays
 * under the size up to which the JIT inlines a hot method (325 bytes of bytecode,
 * {@code -XX:FreqInlineSize}), with helpers where it would not.
 */
interface Probing extends Algorithm {

    /**
     * The transition; with {@code build} false, an admission's {@link Transition#state()} is
     * {@link Checks#NO_STATE}, not the state to store.
     */
    Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost, boolean build);

    @Override
    default Transition transition(long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        return transition(state, nowMicros, limit, cost, true);
    }

    /** This limit's decision alone when it denies the request, else {@code null}; nothing built for an admission. */
    default @Nullable Decision denial(long @Nullable [] state, long nowMicros, Limit limit, long cost) {
        return Decisions.denial(limit, transition(state, nowMicros, limit, cost, false));
    }
}
