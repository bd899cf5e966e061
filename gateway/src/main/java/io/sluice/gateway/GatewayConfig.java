package io.sluice.gateway;

import io.sluice.core.PolicyProblem;
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
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
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

    private static final StoreSettings LOCAL = new StoreSettings("local", null, List.of(), List.of(), null, null,
            null, 1_000_000, 0, false);

    /**
     * Reads the {@code store:} and {@code http:} sections of {@code file}; both are optional.
     *
     * @throws GatewayConfigException naming the first problem
     */
    static GatewayConfig load(Path file) {
        return parse(read(file), file.toString());
    }

    /** Every problem of the {@code store:} and {@code http:} sections of {@code file}, in the order read. */
    static List<PolicyProblem> check(Path file) {
        List<PolicyProblem> problems = new ArrayList<>();
        try {
            parse(read(file), file.toString(), problems);
        } catch (GatewayConfigException e) {
            // Only a file that cannot be read or composed ends the reading.
            problems.add(e.problem());
        }
        return problems;
    }

    static GatewayConfig parse(String yaml, String file) {
        return parse(yaml, file, null);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new GatewayConfigException(file.toString(), 0, "cannot read the file: " + e);
        }
    }

    /** With {@code problems} null the first problem is thrown; else each is added and its field read as unset. */
    private static GatewayConfig parse(String yaml, String file, @Nullable List<PolicyProblem> problems) {
        Node root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).compose(new StringReader(yaml));
        } catch (YAMLException e) {
            // The policy parser reports syntax errors with their line; this only guards against reading garbage.
            throw new GatewayConfigException(file, 1, "YAML syntax: " + e.getMessage());
        }
        Reader reader = new Reader(file, problems);
        Map<String, Node> top = root instanceof MappingNode ? reader.mapping(root) : Map.of();
        StoreSettings store = top.containsKey("store") ? reader.or(() -> reader.store(top.get("store")), LOCAL) : LOCAL;
        ClientIdentity identity = ClientIdentity.ofDefaults();
        Set<HeaderFamily> families = EnumSet.of(HeaderFamily.IETF);
        if (top.containsKey("http")) {
            Node http = top.get("http");
            Map<String, Node> fields = reader.or(() -> reader.fields(http, "http",
                    Set.of("api-key-header", "api-key-query-parameter", "trusted-proxies", "headers")), Map.of());
            ClientIdentity.Builder builder = ClientIdentity.custom();
            if (fields.containsKey("api-key-header")) {
                reader.attempt(fields.get("api-key-header"),
                        node -> builder.apiKeyHeader(reader.scalar(node)));
            }
            if (fields.containsKey("api-key-query-parameter")) {
                reader.attempt(fields.get("api-key-query-parameter"),
                        node -> builder.apiKeyQueryParameter(reader.scalar(node)));
            }
            if (fields.containsKey("trusted-proxies")) {
                reader.attempt(fields.get("trusted-proxies"), node -> builder.trustedProxies(reader.list(node)));
            }
            identity = builder.build();
            if (fields.containsKey("headers")) {
                Node headers = fields.get("headers");
                families = EnumSet.noneOf(HeaderFamily.class);
                for (String family : reader.or(() -> reader.list(headers), List.<String>of())) {
                    switch (family) {
                        case "ietf" -> families.add(HeaderFamily.IETF);
                        case "x-ratelimit" -> families.add(HeaderFamily.X_RATE_LIMIT);
                        default -> reader.report(reader.error(headers,
                                "unknown header family '" + family + "', expected ietf or x-ratelimit"));
                    }
                }
            }
        }
        return new GatewayConfig(store, identity, families);
    }

    /** Reads nodes, naming the file and line of whatever is wrong. */
    private static final class Reader {

        private final String file;
        /** Where problems go when every one is wanted; null to throw the first. */
        private final @Nullable List<PolicyProblem> problems;

        Reader(String file, @Nullable List<PolicyProblem> problems) {
            this.file = file;
            this.problems = problems;
        }

        /** Throws {@code problem}, or adds it when every problem is wanted. */
        void report(GatewayConfigException problem) {
            if (problems == null) {
                throw problem;
            }
            problems.add(problem.problem());
        }

        /** What {@code read} gives, or {@code unset} after reporting its problem. */
        <T> T or(Supplier<T> read, T unset) {
            try {
                return read.get();
            } catch (GatewayConfigException e) {
                report(e);
                return unset;
            }
        }

        /** What {@code read} gives, or null after reporting its problem. */
        <T> @Nullable T orNull(Supplier<@Nullable T> read) {
            try {
                return read.get();
            } catch (GatewayConfigException e) {
                report(e);
                return null;
            }
        }

        /** Applies {@code node} to a builder; a value the builder refuses is a problem at the node. */
        void attempt(Node node, Consumer<Node> apply) {
            try {
                apply.accept(node);
            } catch (GatewayConfigException e) {
                report(e);
            } catch (IllegalArgumentException e) {
                report(error(node, e.getMessage()));
            }
        }

        StoreSettings store(Node node) {
            Map<String, Node> all = mapping(node);
            String kind = all.containsKey("type") ? scalar(all.get("type")).toLowerCase(Locale.ROOT) : "local";
            if (!STORE_FIELDS.containsKey(kind)) {
                // The fields allowed depend on the type: without one, nothing more can be checked.
                throw error(all.get("type"), "unknown store type '" + kind + "', expected one of "
                        + new TreeSet<>(STORE_FIELDS.keySet()));
            }
            Map<String, Node> fields = fields(node, "a " + kind + " store", STORE_FIELDS.get(kind));
            String mode = null;
            if (kind.equals("hazelcast") || kind.equals("ignite")) {
                mode = fields.containsKey("mode") ? or(() -> scalar(fields.get("mode")), "client") : "client";
                if (!mode.equals("client") && !mode.equals("member")) {
                    report(error(fields.get("mode"), "mode must be client or member, got '" + mode + "'"));
                    mode = "member";
                }
            }
            List<String> uris = new ArrayList<>();
            if (kind.equals("redis")) {
                if (fields.containsKey("uri") == fields.containsKey("cluster")) {
                    report(error(node, "a redis store needs either uri (one server) or cluster (seed nodes), not both"));
                } else {
                    uris.addAll(or(() -> fields.containsKey("uri") ? List.of(scalar(fields.get("uri")))
                            : list(Objects.requireNonNull(fields.get("cluster"), "cluster")), List.of()));
                }
                mode = fields.containsKey("cluster") ? "cluster" : "standalone";
            }
            List<String> addresses = fields.containsKey("addresses")
                    ? or(() -> list(fields.get("addresses")), List.of()) : List.of();
            if ("client".equals(mode) && addresses.isEmpty()) {
                report(error(node, "a " + kind + " client needs the addresses of the cluster's members"));
            }
            Duration timeout = null;
            if (fields.containsKey("timeout")) {
                timeout = orNull(() -> {
                    try {
                        return new DurationConverter().convert(scalar(fields.get("timeout")));
                    } catch (TypeConversionException e) {
                        throw error(fields.get("timeout"), "timeout: " + e.getMessage());
                    }
                });
            }
            long maximumSize = fields.containsKey("maximum-size")
                    ? or(() -> positive(fields.get("maximum-size"), "maximum-size", Long.MAX_VALUE), 1_000_000L)
                    : 1_000_000;
            int instances = fields.containsKey("instances")
                    ? or(() -> (int) positive(fields.get("instances"), "instances", Integer.MAX_VALUE), 0) : 0;
            String name = orNull(() -> fields.containsKey("map") ? scalar(fields.get("map"))
                    : fields.containsKey("cache") ? scalar(fields.get("cache")) : null);
            String clusterName = fields.containsKey("cluster-name") ? orNull(() -> scalar(fields.get("cluster-name")))
                    : null;
            boolean readKeySchema1 = fields.containsKey("read-key-schema-1")
                    && or(() -> flag(fields.get("read-key-schema-1"), "read-key-schema-1"), false);
            return new StoreSettings(kind, mode, uris, addresses, clusterName, name, timeout, maximumSize, instances,
                    readKeySchema1);
        }

        /** A positive number of at most {@code most}, {@code _} allowed between digits. */
        private long positive(Node node, String field, long most) {
            String text = scalar(node).replace("_", "");
            long value;
            try {
                value = Long.parseLong(text);
            } catch (NumberFormatException e) {
                value = -1;
            }
            if (value < 1 || value > most) {
                throw error(node, field + " must be a positive number, got '" + text + "'");
            }
            return value;
        }

        private boolean flag(Node node, String field) {
            String text = scalar(node);
            if (!text.equals("true") && !text.equals("false")) {
                throw error(node, field + " must be true or false, got '" + text + "'");
            }
            return text.equals("true");
        }

        /** The fields of a mapping that are {@code allowed}; each other one is a problem. */
        Map<String, Node> fields(Node node, String what, Set<String> allowed) {
            Map<String, Node> fields = mapping(node);
            List<Map.Entry<String, Node>> unknown = fields.entrySet().stream()
                    .filter(field -> !allowed.contains(field.getKey()))
                    .sorted(Comparator.comparingInt(field -> field.getValue().getStartMark().getLine()))
                    .toList();
            for (Map.Entry<String, Node> field : unknown) {
                report(error(field.getValue(), "unknown field '" + field.getKey() + "' in " + what
                        + " (expected one of " + new TreeSet<>(allowed) + ")"));
            }
            fields.keySet().retainAll(allowed);
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
