package io.sluice.jmh;

import java.io.IOException;
import org.apache.ignite.Ignite;
import org.apache.ignite.Ignition;

/**
 * The Ignite server node that {@link IgniteCluster} runs in a JVM of its own, with the
 * benchmark's class path (so Sluice's entry processor is there). It prints {@value #READY}
 * once started and stops when its standard input closes.
 */
public final class IgniteMemberProcess {

    /** The line printed once the node is up. */
    static final String READY = "sluice-jmh ignite node ready";

    private IgniteMemberProcess() {
    }

    /**
     * Arguments: cluster name, this node's discovery and communication ports, the caller's
     * discovery and communication ports.
     */
    public static void main(String[] args) throws IOException {
        int[] own = {Integer.parseInt(args[1]), Integer.parseInt(args[2])};
        int[] caller = {Integer.parseInt(args[3]), Integer.parseInt(args[4])};
        Ignite node = Ignition.start(IgniteCluster.configuration(args[0], "remote", own, caller));
        System.out.println(READY);
        System.out.flush();
        while (System.in.read() != -1) {
            // Only the end of the input matters.
        }
        node.close();
    }
}
