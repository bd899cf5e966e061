/**
 * What the shared stores use to count the limiter instances that share them
 * ({@link io.sluice.api.InstanceCount}): a {@link io.sluice.algorithms.instances.Heartbeat} per
 * store, and the registry that the grid stores (Hazelcast, Ignite) keep in one entry
 * ({@link io.sluice.algorithms.instances.InstanceRegistry}). Applications do not use this
 * package; a store of your own may.
 */
package io.sluice.algorithms.instances;
