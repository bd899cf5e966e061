/**
 * What bounds the calls of a store, and of the store guard in front of it, by a timeout:
 * {@link io.sluice.algorithms.calls.Deadlines}, one thread per store or guard instead of a
 * task on the JDK's timer per call; and {@link io.sluice.algorithms.calls.Causes}, a failed
 * call's cause out of its stage's wrappers. Applications do not use this package; a store of
 * your own may.
 */
package io.sluice.algorithms.calls;
