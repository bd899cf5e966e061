package io.sluice.jmh;

/**
 * Who calls the grid in the benchmark's JVM ({@link HazelcastCluster#start(Caller)},
 * {@link IgniteCluster#start(Caller)}), as a gateway's {@code mode} says.
 */
public enum Caller {
    /** The member (Hazelcast) or server node (Ignite) in the benchmark's JVM: a gateway in {@code mode: member}. */
    MEMBER,
    /**
     * A client started in the benchmark's JVM beside that member: a Hazelcast client of both
     * members (smart routing: straight to a key's owner), an Ignite client node. A gateway in
     * {@code mode: client}, the default.
     */
    CLIENT
}
