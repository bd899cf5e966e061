package io.sluice.core;

import java.util.List;
import java.util.Set;

/**
 * Requests matched by method and path: what they cost and their own limits, per client
 * and over all clients.
 *
 * @param methods the upper-case methods it matches; empty for any method
 */
record EndpointRule(String name, Set<String> methods, PathPattern path, long cost,
                    List<LimitRule> perKey, List<LimitRule> global) {

    EndpointRule {
        methods = Set.copyOf(methods);
        perKey = List.copyOf(perKey);
        global = List.copyOf(global);
    }

    /** The store key under which the global limits of this endpoint keep their state. */
    String globalKey() {
        return "endpoint:" + name;
    }

    boolean matches(String method, PathPattern.RequestPath requestPath) {
        return (methods.isEmpty() || methods.contains(method)) && path.matches(requestPath);
    }
}
