package io.sluice.jmh;

/** Who calls the Hazelcast cluster in the benchmark's JVM ({@link HazelcastCluster#start(HazelcastCaller)}). */
public enum HazelcastCaller {
    /** The member in the benchmark's JVM: a gateway in {@code mode: member}. */
    MEMBER,
    /**
     * A client of both members (smart routing: straight to a key's owner), started in the
     * benchmark's JVM beside its member: a gateway in {@code mode: client}, the default.
     */
    CLIENT
}
