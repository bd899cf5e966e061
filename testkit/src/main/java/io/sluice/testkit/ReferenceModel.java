package io.sluice.testkit;

import io.sluice.algorithms.Decisions;
import io.sluice.api.Decision;
import io.sluice.api.Limit;
import io.sluice.api.Transition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What every store must decide, computed the plainest way: a map of each key's per-limit
 * states, each limit's {@link io.sluice.api.Algorithm#transition} on its own state, and
 * {@link Decisions#combine}. It shares nothing with a store's code path but the algorithms.
 * A limit's state lives until the reset of the charge that wrote it, as the stores keep it: past
 * that it is the fresh state, also for a limit of the same name whose parameters changed (under
 * the same parameters the algorithms' contract makes it decide as the fresh state anyway, so a
 * store that expires a state too early disagrees with the model). Not thread-safe.
 */
final class ReferenceModel {

    private final Map<String, Map<String, HeldState>> states = new HashMap<>();

    /** Decides a request at {@code nowMicros} and, when every limit admits it, charges them all. */
    Decision tryAcquire(String key, List<Limit> limits, long nowMicros, long cost) {
        Map<String, HeldState> limitStates = states.computeIfAbsent(key, k -> new LinkedHashMap<>());
        List<Transition> transitions = new ArrayList<>(limits.size());
        for (Limit limit : limits) {
            HeldState held = limitStates.get(limit.name());
            long @Nullable [] state = held != null && held.expiresAtMicros() > nowMicros ? held.state() : null;
            transitions.add(limit.algorithm().transition(state, nowMicros, limit, cost));
        }
        Decision decision = Decisions.combine(limits, transitions);
        if (decision.allowed()) {
            // A write drops the key's expired states, as a store's does: a clock going back later
            // does not bring them back.
            limitStates.values().removeIf(held -> held.expiresAtMicros() <= nowMicros);
            for (int i = 0; i < limits.size(); i++) {
                Transition transition = transitions.get(i);
                // Admitted, so it has a state: Transition.allowed requires one.
                long[] state = Objects.requireNonNull(transition.state(), "admitted transition's state");
                limitStates.put(limits.get(i).name(), new HeldState(limits.get(i), state,
                        nowMicros + transition.resetAfterMicros()));
            }
        }
        return decision;
    }

    /** The states the key's limits hold, in the order they were first charged. */
    List<HeldState> held(String key) {
        return List.copyOf(states.getOrDefault(key, Map.of()).values());
    }
}
