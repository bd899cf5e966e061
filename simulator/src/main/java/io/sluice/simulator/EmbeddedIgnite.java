package io.sluice.simulator;

import io.sluice.api.Store;
import io.sluice.api.TimeSource;
import io.sluice.store.ignite.IgniteStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
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
 * One Ignite server node in this JVM, started for the command: discovery and communication on
 * two free loopback ports that only it knows, so it joins no other cluster on the machine, a
 * small data region, and a work directory of its own that is deleted when it stops. Java 17
 * needs the JVM flags of {@code store-ignite/jvm-ignite.options}; the executable jar's manifest
 * carries them.
 */
final class EmbeddedIgnite implements StoreBackend {

    /** Held so the level sticks: JUL keeps loggers weakly. */
    private static final Logger IGNITE_LOG = Logger.getLogger("org.apache.ignite");

    private final Ignite node;
    private final Path workDirectory;

    private EmbeddedIgnite(Ignite node, Path workDirectory) {
        this.node = node;
        this.workDirectory = workDirectory;
    }

    /** Starts the node; its warnings and errors go to standard error, nothing to standard output. */
    static EmbeddedIgnite start() {
        // Quiet mode would print the start-up summary to standard output, which carries the results.
        System.setProperty("IGNITE_QUIET", "false");
        System.setProperty("IGNITE_NO_ASCII", "true");
        System.setProperty("IGNITE_UPDATE_NOTIFIER", "false");
        System.setProperty("IGNITE_PERFORMANCE_SUGGESTIONS_DISABLED", "true");
        System.setProperty("IGNITE_DEV_ONLY_LOGGING_DISABLED", "true");
        System.setProperty("java.net.preferIPv4Stack", "true");
        IGNITE_LOG.setLevel(Level.WARNING);
        Path work;
        try {
            work = Files.createTempDirectory("sluice-simulate-ignite");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a work directory for the Ignite node", e);
        }
        int discoveryPort = freePort();
        String name = "sluice-simulate-" + UUID.randomUUID();
        IgniteConfiguration configuration = new IgniteConfiguration()
                .setIgniteInstanceName(name)
                .setConsistentId(name)
                .setWorkDirectory(work.toString())
                .setDiscoverySpi(new TcpDiscoverySpi()
                        .setIpFinder(new TcpDiscoveryVmIpFinder().setAddresses(List.of("127.0.0.1:" + discoveryPort)))
                        .setLocalAddress("127.0.0.1")
                        .setLocalPort(discoveryPort)
                        .setLocalPortRange(0))
                .setCommunicationSpi(new TcpCommunicationSpi()
                        .setLocalAddress("127.0.0.1")
                        .setLocalPort(freePort())
                        .setLocalPortRange(0))
                .setDataStorageConfiguration(new DataStorageConfiguration()
                        .setDefaultDataRegionConfiguration(new DataRegionConfiguration()
                                .setName("sluice-simulate")
                                .setInitialSize(64L * 1024 * 1024)
                                .setMaxSize(256L * 1024 * 1024)))
                .setPeerClassLoadingEnabled(false)
                .setClientConnectorConfiguration(null)
                .setConnectorConfiguration(null)
                .setMetricsLogFrequency(0)
                .setFailureHandler(new StopNodeFailureHandler())
                .setGridLogger(new JavaLogger(false));
        try {
            return new EmbeddedIgnite(Ignition.start(configuration), work);
        } catch (RuntimeException e) {
            delete(work);
            throw e;
        }
    }

    @Override
    public Store open(TimeSource clock) {
        return IgniteStore.builder(node).backups(0).timeout(CALL_TIMEOUT).clockForTesting(clock).build();
    }

    @Override
    public void close() {
        try {
            Ignition.stop(node.name(), true);
        } finally {
            delete(workDirectory);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1 for the Ignite node", e);
        }
    }

    private static void delete(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the Ignite node's work directory " + directory, e);
        }
    }
}
