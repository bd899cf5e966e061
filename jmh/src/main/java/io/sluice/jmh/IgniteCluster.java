package io.sluice.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.ignite.Ignite;
import org.apache.ignite.Ignition;
import org.apache.ignite.configuration.DataRegionConfiguration;
import org.apache.ignite.configuration.DataStorageConfiguration;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.failure.StopNodeFailureHandler;
import org.apache.ignite.logger.java.JavaLogger;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;
import org.jspecify.annotations.Nullable;

/**
 * A two-node Ignite cluster on loopback, in the manner of {@link HazelcastCluster}: one server
 * node in a separate JVM ({@link IgniteMemberProcess}) and one in the benchmark's JVM, the
 * caller, or whose client node is ({@link #start(Caller)}). The benchmarks use keys whose
 * primary copy is on the other server node.
 */
final class IgniteCluster implements AutoCloseable {

    /** What Ignite needs to run on Java 17 (as listed in docs/stores/ignite.md). */
    static final List<String> JVM_ARGS = List.of(
            "--add-opens=java.base/jdk.internal.access=ALL-UNNAMED",
            "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
            "--add-opens=java.management/com.sun.jmx.mbeanserver=ALL-UNNAMED",
            "--add-opens=jdk.internal.jvmstat/sun.jvmstat.monitor=ALL-UNNAMED",
            "--add-opens=java.base/sun.reflect.generics.reflectiveObjects=ALL-UNNAMED",
            "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
            "--add-opens=java.base/java.math=ALL-UNNAMED",
            "--add-opens=java.sql/java.sql=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.management/sun.management=ALL-UNNAMED",
            "--add-opens=java.desktop/java.awt.font=ALL-UNNAMED");

    private static final long STARTUP_TIMEOUT_SECONDS = 120;

    private final Process remote;
    private final Ignite server;
    private final @Nullable Ignite client;

    private IgniteCluster(Process remote, Ignite server, @Nullable Ignite client) {
        this.remote = remote;
        this.server = server;
        this.client = client;
    }

    /** Starts the remote node, then the caller's, and waits until both are in the topology. */
    static IgniteCluster start() {
        return start(Caller.MEMBER);
    }

    /**
     * As {@link #start()}, then, for {@link Caller#CLIENT}, a client node joining through the
     * server node in this JVM, which is the caller.
     */
    static IgniteCluster start(Caller caller) {
        String clusterName = "sluice-jmh-" + UUID.randomUUID();
        int[] remotePorts = {MemberProcess.freePort(), MemberProcess.freePort()};
        int[] serverPorts = {MemberProcess.freePort(), MemberProcess.freePort()};
        Process remote = startRemote(clusterName, remotePorts, serverPorts);
        Ignite server = null;
        try {
            server = Ignition.start(configuration(clusterName, "caller", serverPorts, remotePorts));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STARTUP_TIMEOUT_SECONDS);
            while (server.cluster().forServers().nodes().size() < 2) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the Ignite nodes did not form a cluster in "
                            + STARTUP_TIMEOUT_SECONDS + " s");
                }
                Thread.sleep(50);
            }
            Ignite client = caller == Caller.MEMBER ? null : Ignition.start(configuration(clusterName, "client",
                    new int[] {MemberProcess.freePort(), MemberProcess.freePort()}, serverPorts).setClientMode(true));
            return new IgniteCluster(remote, server, client);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopOnFailure(remote, server);
            throw new IllegalStateException("interrupted while starting Ignite", e);
        } catch (RuntimeException e) {
            stopOnFailure(remote, server);
            throw e;
        }
    }

    private static void stopOnFailure(Process remote, @Nullable Ignite server) {
        if (server != null) {
            server.close();
        }
        remote.destroyForcibly();
    }

    /** The node through which the benchmarks call: the server node in this JVM, or its client node when started with one. */
    Ignite caller() {
        return client != null ? client : server;
    }

    /** Whether the node in the other JVM holds the primary copy of this key of {@code cache}. */
    boolean primaryOnRemote(String cache, Object key) {
        return !server.affinity(cache).isPrimary(server.cluster().localNode(), key);
    }

    @Override
    public void close() {
        try {
            if (client != null) {
                client.close();
            }
            server.close();
        } finally {
            MemberProcess.stop(remote);
        }
    }

    /**
     * A server node of the cluster: discovery and communication on loopback at the given
     * ports ({@code [discovery, communication]}), both nodes' discovery ports as the only
     * addresses to join, a small in-memory region, no peer class loading, warnings only.
     */
    static IgniteConfiguration configuration(String clusterName, String node, int[] ownPorts, int[] otherPorts) {
        System.setProperty("IGNITE_QUIET", "true");
        System.setProperty("IGNITE_NO_ASCII", "true");
        System.setProperty("IGNITE_UPDATE_NOTIFIER", "false");
        System.setProperty("IGNITE_PERFORMANCE_SUGGESTIONS_DISABLED", "true");
        System.setProperty("java.net.preferIPv4Stack", "true");
        Logger.getLogger("org.apache.ignite").setLevel(Level.WARNING);
        TcpDiscoverySpi discovery = new TcpDiscoverySpi()
                .setIpFinder(new TcpDiscoveryVmIpFinder().setAddresses(
                        List.of("127.0.0.1:" + ownPorts[0], "127.0.0.1:" + otherPorts[0])))
                .setLocalAddress("127.0.0.1")
                .setLocalPort(ownPorts[0])
                .setLocalPortRange(0);
        TcpCommunicationSpi communication = new TcpCommunicationSpi()
                .setLocalAddress("127.0.0.1")
                .setLocalPort(ownPorts[1])
                .setLocalPortRange(0);
        DataStorageConfiguration storage = new DataStorageConfiguration()
                .setDefaultDataRegionConfiguration(new DataRegionConfiguration()
                        .setName("sluice-jmh")
                        .setInitialSize(64L * 1024 * 1024)
                        .setMaxSize(512L * 1024 * 1024));
        try {
            return new IgniteConfiguration()
                    .setIgniteInstanceName(clusterName + "-" + node)
                    .setConsistentId(clusterName + "-" + node)
                    .setWorkDirectory(Files.createTempDirectory("sluice-jmh-ignite-").toString())
                    .setDiscoverySpi(discovery)
                    .setCommunicationSpi(communication)
                    .setDataStorageConfiguration(storage)
                    .setPeerClassLoadingEnabled(false)
                    .setClientConnectorConfiguration(null)
                    .setConnectorConfiguration(null)
                    .setMetricsLogFrequency(0)
                    .setFailureHandler(new StopNodeFailureHandler())
                    .setGridLogger(new JavaLogger(false));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Process startRemote(String clusterName, int[] ownPorts, int[] callerPorts) {
        return MemberProcess.start("Ignite node", JVM_ARGS, IgniteMemberProcess.class,
                List.of(clusterName, Integer.toString(ownPorts[0]), Integer.toString(ownPorts[1]),
                        Integer.toString(callerPorts[0]), Integer.toString(callerPorts[1])),
                IgniteMemberProcess.READY);
    }
}
