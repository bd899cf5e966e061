package io.sluice.gateway;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The curl lines printed when the gateway runs with the demo upstream: an admitted call with
 * the first API key of the file, enough calls with it to reach a 429, a 401 for an unknown key,
 * and the admin endpoints. The file has been checked by the policy parser already.
 */
final class DemoHints {

    private static final int MOST_CALLS = 200;

    private DemoHints() {
    }

    @SuppressWarnings("NullAway") // untyped YAML: a missing field fails below and is caught as no hint
    static void print(PrintWriter out, Path config, int port, int adminPort) {
        String key = "YOUR-API-KEY";
        long calls = 10;
        String header = "X-Api-Key";
        try {
            Map<?, ?> root = (Map<?, ?>) new Yaml(new SafeConstructor(new LoaderOptions()))
                    .load(Files.readString(config, StandardCharsets.UTF_8));
            header = GatewayConfig.load(config).identity().apiKeyHeader().orElse(header);
            Map<?, ?> first = (Map<?, ?>) ((List<?>) ((Map<?, ?>) root.get("api-keys")).get("keys")).get(0);
            key = String.valueOf(first.get("key"));
            calls = callsToExhaust(root, String.valueOf(first.get("tier")));
        } catch (IOException | RuntimeException e) {
            // A file without listed keys: the lines keep a placeholder for the key.
        }
        String base = "http://localhost:" + port;
        String withKey = "-H '" + header + ": " + key + "' ";
        out.println();
        out.println("Try it (Ctrl-C stops the gateway, finishing requests in flight):");
        out.println("  curl -i " + withKey + base + "/hello");
        out.println("      an admitted call: 200 from the demo API, with RateLimit-Policy and RateLimit headers");
        out.println("  for i in $(seq " + calls + "); do curl -s -o /dev/null -w '%{http_code} ' " + withKey + base
                + "/hello; done; echo");
        out.println("      the same key until its limit is used up: 200s, then 429 (curl -i shows Retry-After)");
        out.println("  curl -i -H '" + header + ": no-such-key' " + base + "/hello");
        out.println("      an unknown key: 401 with a problem body");
        out.println("  curl http://localhost:" + adminPort + "/admin/top-denied   (also /metrics, /health, "
                + "/admin/config, /admin/explain?key=...&path=/hello)");
    }

    /** One more call than the smallest capacity of the tier's limits, so the last ones are denied. */
    @SuppressWarnings("NullAway") // untyped YAML: a missing field fails, and the caller catches it
    private static long callsToExhaust(Map<?, ?> root, String tierName) {
        long smallest = MOST_CALLS;
        for (Object tier : (List<?>) root.get("tiers")) {
            Map<?, ?> fields = (Map<?, ?>) tier;
            if (Objects.equals(String.valueOf(fields.get("name")), tierName)) {
                for (Object limit : (List<?>) fields.get("limits")) {
                    Map<?, ?> limitFields = (Map<?, ?>) limit;
                    Object capacity = limitFields.containsKey("burst") ? limitFields.get("burst")
                            : limitFields.get("permits");
                    smallest = Math.min(smallest, Long.parseLong(String.valueOf(capacity).replace("_", "")));
                }
            }
        }
        return smallest + 1;
    }
}
