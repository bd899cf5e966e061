package io.sluice.gateway;

import io.sluice.http.ClientIdentity;
import io.sluice.http.HeaderFamily;
import io.sluice.simulator.DurationConverter;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import picocli.CommandLine.TypeConversionException;

/**
 * The gateway's own sections of the policy file, which {@code sluice-core} leaves to it:
 * {@code store:} (where the limits' state lives) and {@code http:} (how callers are identified,
 * which header fields to send). Both are read once, at start; the policy sections reload live.
 * The format is in docs/gateway.md.
 */
record GatewayConfig(StoreSettings store, ClientIdentity identity, Set<HeaderFamily> headerFamilies) {

    /**
     * Where the state lives. Fields that do not apply to {@code kind} are rejected when read.
     * {@code instances} is the fallback's divisor when set, else 0: the store counts the gateways.
     * {@code readKeySchema1}: a Redis store also reads the state Redis keys of schema 1 hold (during
     * a rolling upgrade from a version that wrote them).
     */
    record StoreSettings(String kind, @Nullable String mode, List<String> uris, List<String> addresses,
                         @Nullable String clusterName, @Nullable String name, @Nullable Duration timeout,
                         long maximumSize, int instances, boolean readKeySchema1) {
    }

    private static final Map<String, Set<String>> STORE_FIELDS = Map.of(
            "local", Set.of("type", "maximum-size"),
            "redis", Set.of("type", "uri", "cluster", "timeout", "instances", "read-key-schema-1"),
            "hazelcast", Set.of("type", "mode", "cluster-name", "addresses", "map", "timeout", "instances"),
            "ignite", Set.of("type", "mode", "addresses", "cache", "timeout", "instances"));

    /** Reads the {@code store:} and {@code http:} sections of {@code file}; both are optional. */
    static GatewayConfig load(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new GatewayConfigException(file.toString(), 0, "cannot read the file: " + e);
        }
        return parse(text, file.toString());
    }

    static GatewayConfig parse(String yaml, String file) {
        Node root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).compose(new StringReader(yaml));
        } catch (YAMLException e) {
            // The policy parser reports syntax errors with their line; this only guards against reading garbage.
            throw new GatewayConfigException(file, 1, "YAML syntax: " + e.getMessage());
        }
        Reader reader = new Reader(file);
        Map<String, Node> top = root instanceof MappingNode ? reader.mapping(root) : Map.of();
        StoreSettings store = top.containsKey("store") ? reader.store(top.get("store"))
                : new StoreSettings("local", null, List.of(), List.of(), null, null, null, 1_000_000, 0, false);
        ClientIdentity identity = ClientIdentity.ofDefaults();
        Set<HeaderFamily> families = EnumSet.of(HeaderFamily.IETF);
        if (top.containsKey("http")) {
            Node http = top.get("http");
            Map<String, Node> fields = reader.fields(http, "http",
                    Set.of("api-key-header", "api-key-query-parameter", "trusted-proxies", "headers"));
            ClientIdentity.Builder builder = ClientIdentity.custom();
            try {
                if (fields.containsKey("api-key-header")) {
                    builder.apiKeyHeader(reader.scalar(fields.get("api-key-header")));
                }
                if (fields.containsKey("api-key-query-parameter")) {
                    builder.apiKeyQueryParameter(reader.scalar(fields.get("api-key-query-parameter")));
                }
                if (fields.containsKey("trusted-proxies")) {
                    builder.trustedProxies(reader.list(fields.get("trusted-proxies")));
                }
            } catch (IllegalArgumentException e) {
                throw reader.error(http, e.getMessage());
            }
            identity = builder.build();
            if (fields.containsKey("headers")) {
                families = EnumSet.noneOf(HeaderFamily.class);
                for (String family : reader.list(fields.get("headers"))) {
                    families.add(switch (family) {
                        case "ietf" -> HeaderFamily.IETF;
                        case "x-ratelimit" -> HeaderFamily.X_RATE_LIMIT;
                        default -> throw reader.error(fields.get("headers"),
                                "unknown header family '" + family + "', expected ietf or x-ratelimit");
                    });
                }
            }
        }
        return new GatewayConfig(store, identity, families);
    }

    /** Reads nodes, naming the file and line of whatever is wrong. */
    private static final class Reader {

        private final String file;

        Reader(String file) {
            this.file = file;
        }

        StoreSettings store(Node node) {
            Map<String, Node> all = mapping(node);
            String kind = all.containsKey("type") ? scalar(all.get("type")).toLowerCase(Locale.ROOT) : "local";
            if (!STORE_FIELDS.containsKey(kind)) {
                throw error(all.get("type"), "unknown store type '" + kind + "', expected one of "
                        + new TreeSet<>(STORE_FIELDS.keySet()));
            }
            Map<String, Node> fields = fields(node, "a " + kind + " store", STORE_FIELDS.get(kind));
            String mode = null;
            if (kind.equals("hazelcast") || kind.equals("ignite")) {
                mode = fields.containsKey("mode") ? scalar(fields.get("mode")) : "client";
                if (!mode.equals("client") && !mode.equals("member")) {
                    throw error(fields.get("mode"), "mode must be client or member, got '" + mode + "'");
                }
            }
            List<String> uris = new ArrayList<>();
            if (kind.equals("redis")) {
                if (fields.containsKey("uri") == fields.containsKey("cluster")) {
                    throw error(node, "a redis store needs either uri (one server) or cluster (seed nodes), not both");
                }
                uris.addAll(fields.containsKey("uri") ? List.of(scalar(fields.get("uri")))
                        : list(Objects.requireNonNull(fields.get("cluster"), "cluster")));
                mode = fields.containsKey("cluster") ? "cluster" : "standalone";
            }
            List<String> addresses = fields.containsKey("addresses") ? list(fields.get("addresses")) : List.of();
            if ("client".equals(mode) && addresses.isEmpty()) {
                throw error(node, "a " + kind + " client needs the addresses of the cluster's members");
            }
            Duration timeout = null;
            if (fields.containsKey("timeout")) {
                try {
                    timeout = new DurationConverter().convert(scalar(fields.get("timeout")));
                } catch (TypeConversionException e) {
                    throw error(fields.get("timeout"), "timeout: " + e.getMessage());
                }
            }
            long maximumSize = 1_000_000;
            if (fields.containsKey("maximum-size")) {
                String text = scalar(fields.get("maximum-size")).replace("_", "");
                try {
                    maximumSize = Long.parseLong(text);
                } catch (NumberFormatException e) {
                    maximumSize = -1;
                }
                if (maximumSize < 1) {
                    throw error(fields.get("maximum-size"), "maximum-size must be a positive number, got '" + text
                            + "'");
                }
            }
            int instances = 0;
            if (fields.containsKey("instances")) {
                String text = scalar(fields.get("instances")).replace("_", "");
                try {
                    instances = Integer.parseInt(text);
                } catch (NumberFormatException e) {
                    instances = -1;
                }
                if (instances < 1) {
                    throw error(fields.get("instances"), "instances must be a positive number, got '" + text + "'");
                }
            }
            String name = fields.containsKey("map") ? scalar(fields.get("map"))
                    : fields.containsKey("cache") ? scalar(fields.get("cache")) : null;
            String clusterName = fields.containsKey("cluster-name") ? scalar(fields.get("cluster-name")) : null;
            boolean readKeySchema1 = fields.containsKey("read-key-schema-1")
                    && flag(fields.get("read-key-schema-1"), "read-key-schema-1");
            return new StoreSettings(kind, mode, uris, addresses, clusterName, name, timeout, maximumSize, instances,
                    readKeySchema1);
        }

        private boolean flag(Node node, String field) {
            String text = scalar(node);
            if (!text.equals("true") && !text.equals("false")) {
                throw error(node, field + " must be true or false, got '" + text + "'");
            }
            return text.equals("true");
        }

        Map<String, Node> fields(Node node, String what, Set<String> allowed) {
            Map<String, Node> fields = mapping(node);
            for (Map.Entry<String, Node> field : fields.entrySet()) {
                if (!allowed.contains(field.getKey())) {
                    throw error(field.getValue(), "unknown field '" + field.getKey() + "' in " + what
                            + " (expected one of " + new TreeSet<>(allowed) + ")");
                }
            }
            return fields;
        }

        Map<String, Node> mapping(Node node) {
            if (!(node instanceof MappingNode)) {
                throw error(node, "expected a mapping of fields");
            }
            Map<String, Node> fields = new HashMap<>();
            for (NodeTuple tuple : ((MappingNode) node).getValue()) {
                fields.put(scalar(tuple.getKeyNode()), tuple.getValueNode());
            }
            return fields;
        }

        String scalar(Node node) {
            if (!(node instanceof ScalarNode)) {
                throw error(node, "expected a single value");
            }
            return ((ScalarNode) node).getValue();
        }

        List<String> list(Node node) {
            if (node instanceof ScalarNode) {
                return List.of(scalar(node));
            }
            if (!(node instanceof SequenceNode)) {
                throw error(node, "expected a list of values");
            }
            List<String> values = new ArrayList<>();
            for (Node item : ((SequenceNode) node).getValue()) {
                values.add(scalar(item));
            }
            return values;
        }

        /** An error at {@code node}; {@code reason} may be an exception's missing message. */
        GatewayConfigException error(@Nullable Node node, @Nullable String reason) {
            return new GatewayConfigException(file, node == null ? 1 : node.getStartMark().getLine() + 1,
                    Objects.toString(reason, "invalid value"));
        }
    }
}
