package io.sluice.core;

import io.sluice.api.Limit;

/** A limit of the policy file and whether it is in shadow mode (decides, never denies). */
record LimitRule(Limit limit, boolean shadow) {
}
