package io.sluice.store.ignite;

/**
 * A server node in a JVM of its own whose class path has Ignite but not the store's classes:
 * a cluster member that skipped the documented set-up. Prints its discovery port, then runs
 * until its standard input closes.
 */
public final class BareServer {

    private BareServer() {
    }

    public static void main(String[] args) throws Exception {
        try (IgniteMembers members = new IgniteMembers("bare", 96L * 1024 * 1024)) {
            members.startServer("server");
            System.out.println("PORT " + members.discoveryPort());
            System.out.flush();
            while (System.in.read() != -1) {
                // Runs until the test closes the pipe.
            }
        }
    }
}
