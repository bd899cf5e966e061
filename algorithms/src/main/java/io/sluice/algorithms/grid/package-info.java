/**
 * What the stores that run the algorithms in another JVM (Hazelcast, Ignite) share, so that
 * they share one copy of it: the wire form of a request ({@link io.sluice.algorithms.grid.GridRequest})
 * and of its answer ({@link io.sluice.algorithms.grid.GridReply}), the operations (a decision, a
 * lease, a give-back: {@link io.sluice.algorithms.grid.GridOperation}) with their checks on the
 * caller and the step the key's owner runs, the store around the one call each grid makes
 * ({@link io.sluice.algorithms.grid.GridStore}), the hand-off that bounds every call by the store's timeout ({@link io.sluice.algorithms.grid.GridCalls})
 * and the builders' checks ({@link io.sluice.algorithms.grid.GridChecks}). Applications do not use
 * this package; a store of your own may.
 */
package io.sluice.algorithms.grid;
