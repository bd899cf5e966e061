/**
 * The reference rate-limiting algorithms as pure, deterministic transitions
 * ({@link io.sluice.algorithms.Algorithms}), the multi-limit rule
 * ({@link io.sluice.algorithms.Decisions}) and the per-key state of the stores that run them
 * next to their data ({@link io.sluice.algorithms.KeyState}). The exact rules are in
 * {@code docs/algorithms.md}; every store, Lua scripts included, reproduces them bit for bit.
 */
package io.sluice.algorithms;
