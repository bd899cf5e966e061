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

/**
 * What every store must decide, computed the plainest way: a map of each key's per-limit
 * states, each limit's {@link io.sluice.api.Algorithm#transition} on its own state, and
 * {@link Decisions#combine}. It shares nothing with a store's code path but the algorithms,
 * and it never expires state: by the algorithms' contract a state past its reset decides
 * as the fresh state does, so a store that expires a state too early disagrees with it.
 * Not thread-safe.
 */
final class ReferenceModel {

    private final Map<String, Map<String, HeldState>> states = new HashMap<>();

    /** Decides a request at {@code nowMicros} and, when every limit admits it, charges them all. */
    Decision tryAcquire(String key, List<Limit> limits, long nowMicros, long cost) {
        Map<String, HeldState> limitStates = states.computeIfAbsent(key, k -> new LinkedHashMap<>());
        List<Transition> transitions = new ArrayList<>(limits.size());
        for (Limit limit : limits) {
            HeldState held = limitStates.get(limit.name());
            transitions.add(limit.algorithm().transition(held == null ? null : held.state(), nowMicros, limit, cost));
        }
        Decision decision = Decisions.combine(limits, transitions);
        if (decision.allowed()) {
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
