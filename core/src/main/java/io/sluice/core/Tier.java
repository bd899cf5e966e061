package io.sluice.core;

import java.util.List;

/**
 * A named set of limits that apply per client: a tier of API keys, or the anonymous
 * callers' limits (named {@value #ANONYMOUS}).
 */
record Tier(String name, List<LimitRule> limits) {

    /** The name of the limits that apply to callers without an API key. */
    static final String ANONYMOUS = "anonymous";

    Tier {
        limits = List.copyOf(limits);
    }
}
