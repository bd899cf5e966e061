package io.sluice.store.ignite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ignite.Ignite;
import org.junit.jupiter.api.Test;

/**
 * A cluster whose server lacks the store's classes (the documented class path not followed):
 * building a store against it fails at once, saying which server lacks what, and the server
 * survives (given the cache configuration, which names the store's expiry policy, Ignite would
 * stop it).
 */
class MemberClasspathIT {

    @Test
    void aClusterWithoutTheStoresClassesRefusesTheStoreAtBuild() throws Exception {
        Process server = startBareServer();
        try (BufferedReader output = new BufferedReader(
                new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            int port = readPort(output);
            try (IgniteMembers members = new IgniteMembers("bare", port, 96L * 1024 * 1024)) {
                Ignite client = members.startClient("client");
                assertThatThrownBy(() -> IgniteStore.builder(client).build())
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("bare-server").hasMessageContaining("sluice-store-ignite");
                assertThat(client.cache(IgniteStore.DEFAULT_CACHE_NAME)).as("the cache").isNull();
                assertThat(client.cluster().forServers().nodes()).as("servers after the refusal").hasSize(1);
                assertThat(server.isAlive()).isTrue();
            }
        } finally {
            server.getOutputStream().close();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private static Process startBareServer() throws Exception {
        List<String> classPath = new ArrayList<>();
        for (Class<?> type : List.of(Ignite.class, javax.cache.Cache.class,
                org.jetbrains.annotations.NotNull.class, BareServer.class)) {
            classPath.add(Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        }
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx512m",
                "@" + Paths.get("jvm-ignite.options").toAbsolutePath(),
                "-cp", String.join(File.pathSeparator, classPath), BareServer.class.getName()));
        return new ProcessBuilder(command).redirectError(Paths.get("target", "bare-server.log").toFile()).start();
    }

    private static int readPort(BufferedReader output) throws Exception {
        for (String line = output.readLine(); line != null; line = output.readLine()) {
            if (line.startsWith("PORT ")) {
                return Integer.parseInt(line.substring(5).trim());
            }
        }
        throw new AssertionError("the bare server ended before it started");
    }
}
