package io.sluice.jmh;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.IOException;

/**
 * The Hazelcast member that {@link HazelcastCluster} runs in a JVM of its own, with the
 * benchmark's class path (so Sluice's and Bucket4j's entry processors are there). It prints
 * {@value #READY} once started and stops when its standard input closes, that is when the
 * benchmark that started it ends, however it ends.
 */
public final class HazelcastMemberProcess {

    /** The line printed once the member is up. */
    static final String READY = "sluice-jmh hazelcast member ready";

    private HazelcastMemberProcess() {
    }

    /** Arguments: cluster name, this member's port, the other member's port, and optionally its instance name. */
    public static void main(String[] args) throws IOException {
        Config config = HazelcastCluster.config(args[0], Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        if (args.length > 3) {
            config.setInstanceName(args[3]);
        }
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        System.out.println(READY);
        System.out.flush();
        while (System.in.read() != -1) {
            // Only the end of the input matters.
        }
        member.shutdown();
    }
}
