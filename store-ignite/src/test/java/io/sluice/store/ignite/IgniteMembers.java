package io.sluice.store.ignite;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
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

/**
 * Real Ignite nodes in this JVM for tests and measurements: a cluster on 127.0.0.1 found through
 * a narrow block of free ports (no multicast), small data regions, no peer class loading (the store's
 * classes are on the class path, as the docs require of cluster members), quiet logs, and a
 * failure handler that stops a failed node instead of halting the JVM.
 */
final class IgniteMembers implements AutoCloseable {

    /** Discovery ports per cluster, and as many communication ports. */
    static final int PORTS_PER_CLUSTER = 10;
    private static final int COMMUNICATION_OFFSET = 1_000;
    /** The range the port blocks come from: below Linux's ephemeral ports (32768 and up). */
    private static final int FIRST_PORT = 20_000;
    private static final int LAST_PORT = 32_000;

    /**
     * Ignite logs through java.util.logging under its package names; only warnings show. Quiet
     * mode is off because it prints the start-up summary to stdout instead of the log.
     */
    private static final Logger IGNITE_LOGS = Logger.getLogger("org.apache.ignite");

    static {
        System.setProperty("IGNITE_QUIET", "false");
        System.setProperty("IGNITE_NO_ASCII", "true");
        System.setProperty("IGNITE_UPDATE_NOTIFIER", "false");
        System.setProperty("IGNITE_PERFORMANCE_SUGGESTIONS_DISABLED", "true");
        System.setProperty("IGNITE_DEV_ONLY_LOGGING_DISABLED", "true");
        System.setProperty("IGNITE_DUMP_THREADS_ON_FAILURE", "false");
        System.setProperty("java.net.preferIPv4Stack", "true");
        IGNITE_LOGS.setLevel(Level.WARNING);
    }

    private final String clusterName;
    private final int discoveryPort;
    private final long regionBytes;
    private final List<Ignite> started = new ArrayList<>();

    /**
     * A cluster whose nodes use a block of {@link #PORTS_PER_CLUSTER} free discovery ports and
     * the communication ports {@value #COMMUNICATION_OFFSET} above them. The block is picked
     * at random among free ones, so that clusters of other test classes, and of other builds
     * on the same machine, neither collide with this one nor join it.
     */
    IgniteMembers(String clusterName, long regionBytes) {
        this(clusterName, freePortBlock(), regionBytes);
    }

    IgniteMembers(String clusterName) {
        this(clusterName, 96L * 1024 * 1024);
    }

    /** Nodes of the cluster whose discovery ports start at {@code discoveryPort}, maybe in another JVM. */
    IgniteMembers(String clusterName, int discoveryPort, long regionBytes) {
        this.clusterName = clusterName;
        this.discoveryPort = discoveryPort;
        this.regionBytes = regionBytes;
    }

    /** The first of this cluster's discovery ports. */
    int discoveryPort() {
        return discoveryPort;
    }

    private static int freePortBlock() {
        int blocks = (LAST_PORT - FIRST_PORT - COMMUNICATION_OFFSET) / PORTS_PER_CLUSTER;
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = FIRST_PORT + ThreadLocalRandom.current().nextInt(blocks) * PORTS_PER_CLUSTER;
            if (free(base) && free(base + COMMUNICATION_OFFSET)) {
                return base;
            }
        }
        throw new IllegalStateException("no free block of " + PORTS_PER_CLUSTER + " ports in "
                + FIRST_PORT + ".." + LAST_PORT);
    }

    private static boolean free(int firstPort) {
        for (int port = firstPort; port < firstPort + PORTS_PER_CLUSTER; port++) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress("127.0.0.1", port));
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /** Starts a server node named {@code clusterName-name}. */
    Ignite startServer(String name) {
        return start(configuration(name).setClientMode(false));
    }

    /** Starts a client node (no data) of this cluster. */
    Ignite startClient(String name) {
        return start(configuration(name).setClientMode(true));
    }

    /**
     * Starts a client node that stops, rather than reconnects, when it loses the cluster: for
     * tests of a cluster that is gone. Stopping a client in the middle of reconnecting once
     * aborted the whole test JVM (SIGABRT inside Ignite 2.17).
     */
    Ignite startClientWithoutReconnect(String name) {
        IgniteConfiguration configuration = configuration(name).setClientMode(true);
        ((TcpDiscoverySpi) configuration.getDiscoverySpi()).setClientReconnectDisabled(true);
        return start(configuration);
    }

    private Ignite start(IgniteConfiguration configuration) {
        Ignite ignite = Ignition.start(configuration);
        synchronized (started) {
            started.add(ignite);
        }
        return ignite;
    }

    IgniteConfiguration configuration(String name) {
        TcpDiscoveryVmIpFinder ipFinder = new TcpDiscoveryVmIpFinder()
                .setAddresses(List.of("127.0.0.1:" + discoveryPort + ".." + (discoveryPort + PORTS_PER_CLUSTER - 1)));
        TcpDiscoverySpi discovery = new TcpDiscoverySpi()
                .setIpFinder(ipFinder)
                .setLocalAddress("127.0.0.1")
                .setLocalPort(discoveryPort)
                .setLocalPortRange(PORTS_PER_CLUSTER - 1);
        TcpCommunicationSpi communication = new TcpCommunicationSpi()
                .setLocalAddress("127.0.0.1")
                .setLocalPort(discoveryPort + COMMUNICATION_OFFSET)
                .setLocalPortRange(PORTS_PER_CLUSTER - 1);
        DataStorageConfiguration storage = new DataStorageConfiguration()
                .setDefaultDataRegionConfiguration(new DataRegionConfiguration()
                        .setName("sluice-test")
                        .setInitialSize(Math.min(regionBytes, 64L * 1024 * 1024))
                        .setMaxSize(regionBytes)
                        .setMetricsEnabled(true));
        Path work = Paths.get("target", "ignite-work", clusterName + "-" + name);
        return new IgniteConfiguration()
                .setIgniteInstanceName(clusterName + "-" + name)
                .setConsistentId(clusterName + "-" + name)
                .setWorkDirectory(work.toAbsolutePath().toString())
                .setDiscoverySpi(discovery)
                .setCommunicationSpi(communication)
                .setDataStorageConfiguration(storage)
                .setPeerClassLoadingEnabled(false)
                .setClientConnectorConfiguration(null)
                .setConnectorConfiguration(null)
                .setMetricsLogFrequency(0)
                .setFailureDetectionTimeout(3_000)
                .setClientFailureDetectionTimeout(3_000)
                .setFailureHandler(new StopNodeFailureHandler())
                .setGridLogger(new JavaLogger(false))
                .setPublicThreadPoolSize(2)
                .setSystemThreadPoolSize(2)
                .setStripedPoolSize(2)
                .setQueryThreadPoolSize(1)
                .setServiceThreadPoolSize(1)
                .setManagementThreadPoolSize(1)
                .setDataStreamerThreadPoolSize(1)
                .setUtilityCachePoolSize(1)
                .setAsyncCallbackPoolSize(1)
                .setRebalanceThreadPoolSize(1)
                .setPeerClassLoadingThreadPoolSize(1);
    }

    /** Stops every node this fixture started that still runs. */
    @Override
    public void close() {
        List<Ignite> nodes;
        synchronized (started) {
            nodes = new ArrayList<>(started);
            started.clear();
        }
        for (Ignite node : nodes) {
            Ignition.stop(node.name(), true);
        }
    }
}
