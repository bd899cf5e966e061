package io.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading is linear in the file's size: a file of many tiers and many endpoints loads in a
 * JVM whose heap is a small multiple of the file, where a structure per tier and endpoint
 * (tiers x endpoints) would need gigabytes.
 */
class LargePolicyFileTest {

    static final int TIERS = 1_000;
    static final int ENDPOINTS = 1_000;
    static final int KEYS = 2_000;
    static final String HEAP = "-Xmx64m";

    @TempDir
    Path directory;

    /** A valid policy of {@code tiers} tiers of two limits, {@code endpoints} endpoints with limits, and keys. */
    static String generate(int tiers, int endpoints, int keys) {
        StringBuilder yaml = new StringBuilder("tiers:\n");
        for (int t = 0; t < tiers; t++) {
            yaml.append("  - name: tier").append(t).append('\n')
                    .append("    limits:\n")
                    .append("      - {name: per-second, algorithm: token-bucket, permits: ").append(100 + t)
                    .append(", period: 1s}\n")
                    .append("      - {name: per-day, algorithm: fixed-window, permits: 1_000_000, period: 1d}\n");
        }
        yaml.append("api-keys:\n  unknown: reject\n  keys:\n");
        for (int k = 0; k < keys; k++) {
            yaml.append("    - {key: key-").append(k).append(", tier: tier").append(k % tiers).append("}\n");
        }
        yaml.append("endpoints:\n");
        for (int e = 0; e < endpoints; e++) {
            yaml.append("  - name: endpoint").append(e).append('\n')
                    .append("    method: [GET, POST]\n")
                    .append("    path: /v1/resource").append(e).append("/{id}/**\n")
                    .append("    cost: 2\n")
                    .append("    per-key:\n")
                    .append("      - {name: per-minute, algorithm: sliding-window-counter, permits: 600, period: 1m}\n")
                    .append("    global:\n")
                    .append("      - {name: per-second, algorithm: gcra, permits: 10_000, period: 1s}\n");
        }
        return yaml.toString();
    }

    @Test
    void aThousandTiersTimesAThousandEndpointsLoadsInASmallHeap() throws Exception {
        Path file = directory.resolve("large.yaml");
        Files.writeString(file, generate(TIERS, ENDPOINTS, KEYS), StandardCharsets.UTF_8);
        assertThat(Files.size(file)).isGreaterThan(500_000);

        Process load = new ProcessBuilder(javaCommand(), HEAP, "-cp", System.getProperty("java.class.path"),
                Load.class.getName(), file.toString())
                .redirectErrorStream(true).start();
        String output = new String(load.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(load.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(output).as("output of the loading JVM (" + HEAP + ")")
                .contains("loaded " + TIERS + " tiers, " + ENDPOINTS + " endpoints");
        assertThat(load.exitValue()).isZero();
    }

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Runs in the small-heap JVM: loads the file and resolves a request on every endpoint. */
    static final class Load {
        public static void main(String[] args) throws IOException {
            PolicyConfig config = PolicyConfig.load(Path.of(args[0]));
            for (int e = 0; e < ENDPOINTS; e++) {
                PolicyConfig.Resolution resolution = config.resolve(
                        ApiRequest.of("key-" + e, "192.0.2.1", "GET", "/v1/resource" + e + "/7/x"),
                        config.listedTierOf("key-" + e));
                if (resolution.endpoint() == null || !resolution.endpoint().name().equals("endpoint" + e)
                        || resolution.plan().steps().size() != 2) {
                    throw new AssertionError("endpoint" + e + " resolved to " + resolution);
                }
            }
            System.out.println("loaded " + TIERS + " tiers, " + ENDPOINTS + " endpoints");
        }
    }
}
