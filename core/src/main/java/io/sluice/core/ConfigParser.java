package io.sluice.core;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import java.io.StringReader;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads a policy file into a {@link PolicyConfig}, checking everything before anything is
 * used, and reporting the first problem with the line of the node it concerns. Works on
 * snakeyaml's node tree (not on constructed maps) so that every value keeps its line.
 */
final class ConfigParser {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*");
    private static final Pattern PERIOD = Pattern.compile("(\\d[\\d_]*)(us|ms|s|m|h|d)");
    private static final Pattern INTEGER = Pattern.compile("[+-]?\\d[\\d_]*");
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]+");
    private static final String REJECT = "reject";

    private final String file;

    private ConfigParser(String file) {
        this.file = file;
    }

    /**
     * Parses and checks a policy.
     *
     * @throws PolicyConfigException naming the file, the line and the reason
     */
    static PolicyConfig parse(String yaml, String file) {
        return new ConfigParser(file).parseDocument(yaml);
    }

    private PolicyConfig parseDocument(String yaml) {
        Node root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).compose(new StringReader(yaml));
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            throw new PolicyConfigException(file, mark == null ? 1 : mark.getLine() + 1,
                    "YAML syntax: " + syntaxReason(e), e);
        } catch (YAMLException e) {
            throw new PolicyConfigException(file, 1, "YAML syntax: " + e.getMessage(), e);
        }
        if (root == null) {
            throw new PolicyConfigException(file, 1, "the file is empty", null);
        }
        Fields top = fields(root, "the policy", Set.of("shadow", "failure-policy", "tiers", "anonymous",
                "api-keys", "endpoints"));

        boolean shadow = top.has("shadow") && bool(top.get("shadow"));
        FailurePolicy failurePolicy = top.has("failure-policy")
                ? failurePolicy(top.get("failure-policy")) : FailurePolicy.FAIL_CLOSED;

        Map<String, Tier> tiers = new LinkedHashMap<>();
        if (top.has("tiers")) {
            for (Node tierNode : list(top.get("tiers"), "tiers")) {
                Fields tierFields = fields(tierNode, "a tier", Set.of("name", "limits"));
                Node nameNode = tierFields.require("name");
                String name = name(nameNode);
                if (name.equals(Tier.ANONYMOUS) || name.equals(REJECT)) {
                    throw error(nameNode, "'" + name + "' is reserved and cannot name a tier");
                }
                if (tiers.containsKey(name)) {
                    throw error(nameNode, "duplicate tier name '" + name + "'");
                }
                tiers.put(name, new Tier(name, limits(tierFields.require("limits"), "tier." + name + ".")));
            }
        }

        Tier anonymous = null;
        int ipv4Prefix = 32;
        int ipv6Prefix = 64;
        if (top.has("anonymous")) {
            Fields anonymousFields = fields(top.get("anonymous"), "anonymous",
                    Set.of("ipv4-prefix", "ipv6-prefix", "limits"));
            if (anonymousFields.has("ipv4-prefix")) {
                ipv4Prefix = (int) integer(anonymousFields.get("ipv4-prefix"), "ipv4-prefix", 1, 32);
            }
            if (anonymousFields.has("ipv6-prefix")) {
                ipv6Prefix = (int) integer(anonymousFields.get("ipv6-prefix"), "ipv6-prefix", 1, 128);
            }
            anonymous = new Tier(Tier.ANONYMOUS,
                    limits(anonymousFields.require("limits"), Tier.ANONYMOUS + "."));
        }

        String unknownKeyTier = null;
        Map<String, String> keyTiers = new HashMap<>();
        if (top.has("api-keys")) {
            Fields keysFields = fields(top.get("api-keys"), "api-keys", Set.of("unknown", "keys"));
            if (keysFields.has("unknown")) {
                Node unknownNode = keysFields.get("unknown");
                String unknown = scalar(unknownNode, "unknown");
                if (unknown.equals(Tier.ANONYMOUS)) {
                    if (anonymous == null) {
                        throw error(unknownNode, "unknown keys are limited as anonymous callers, "
                                + "but there is no 'anonymous' section");
                    }
                    unknownKeyTier = Tier.ANONYMOUS;
                } else if (!unknown.equals(REJECT)) {
                    if (!tiers.containsKey(unknown)) {
                        throw error(unknownNode, "unknown: expected 'reject', 'anonymous' or a tier name "
                                + tiers.keySet() + ", got '" + unknown + "'");
                    }
                    unknownKeyTier = unknown;
                }
            }
            if (keysFields.has("keys")) {
                for (Node keyNode : list(keysFields.get("keys"), "keys")) {
                    Fields keyFields = fields(keyNode, "an API key", Set.of("key", "tier"));
                    Node valueNode = keyFields.require("key");
                    String key = scalar(valueNode, "key");
                    if (key.isEmpty()) {
                        throw error(valueNode, "an API key must not be empty");
                    }
                    Node tierNode = keyFields.require("tier");
                    String tier = scalar(tierNode, "tier");
                    if (!tiers.containsKey(tier)) {
                        throw error(tierNode, "no tier named '" + tier + "' (tiers: " + tiers.keySet() + ")");
                    }
                    if (keyTiers.put(key, tier) != null) {
                        throw error(valueNode, "duplicate API key (listed twice)");
                    }
                }
            }
        }

        List<EndpointRule> endpoints = new ArrayList<>();
        Map<EndpointRule, Node> costNodes = new HashMap<>();
        if (top.has("endpoints")) {
            Set<String> names = new HashSet<>();
            for (Node endpointNode : list(top.get("endpoints"), "endpoints")) {
                Fields endpointFields = fields(endpointNode, "an endpoint",
                        Set.of("name", "method", "path", "cost", "per-key", "global"));
                Node nameNode = endpointFields.require("name");
                String name = name(nameNode);
                if (!names.add(name)) {
                    throw error(nameNode, "duplicate endpoint name '" + name + "'");
                }
                Set<String> methods = endpointFields.has("method")
                        ? methods(endpointFields.get("method")) : Set.of();
                Node pathNode = endpointFields.require("path");
                PathPattern path;
                try {
                    path = PathPattern.parse(scalar(pathNode, "path"));
                } catch (IllegalArgumentException e) {
                    throw error(pathNode, e.getMessage());
                }
                long cost = endpointFields.has("cost")
                        ? integer(endpointFields.get("cost"), "cost", 1, Limit.MAX_PERMITS) : 1;
                String prefix = "endpoint." + name + ".";
                List<LimitRule> perKey = endpointFields.has("per-key")
                        ? limits(endpointFields.get("per-key"), prefix + "per-key.") : List.of();
                List<LimitRule> global = endpointFields.has("global")
                        ? limits(endpointFields.get("global"), prefix + "global.") : List.of();
                EndpointRule endpoint = new EndpointRule(name, methods, path, cost, perKey, global);
                endpoints.add(endpoint);
                costNodes.put(endpoint, endpointFields.has("cost") ? endpointFields.get("cost") : nameNode);
            }
        }

        PolicyConfig config = new PolicyConfig(file, shadow, failurePolicy, tiers, anonymous, unknownKeyTier,
                keyTiers, endpoints, ipv4Prefix, ipv6Prefix);
        checkCosts(config, costNodes);
        return config;
    }

    /** A cost above a limit's capacity would deny every such request: almost surely a mistake. */
    private void checkCosts(PolicyConfig config, Map<EndpointRule, Node> costNodes) {
        for (Plan plan : config.plans()) {
            if (plan.endpoint() == null) {
                continue;
            }
            for (Limit limit : plan.limits()) {
                if (plan.cost() > limit.burst()) {
                    throw error(Objects.requireNonNull(costNodes.get(plan.endpoint())), "cost " + plan.cost() + " of endpoint '"
                            + plan.endpoint().name() + "' exceeds the capacity " + limit.burst() + " of limit '"
                            + limit.name() + "': every such request would be denied");
                }
            }
        }
    }

    private List<LimitRule> limits(Node node, String namePrefix) {
        List<LimitRule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Node limitNode : list(node, "limits")) {
            Fields limitFields = fields(limitNode, "a limit",
                    Set.of("name", "algorithm", "permits", "period", "burst", "shadow"));
            Node nameNode = limitFields.require("name");
            String name = name(nameNode);
            if (!names.add(name)) {
                throw error(nameNode, "duplicate limit name '" + name + "'");
            }
            Node algorithmNode = limitFields.require("algorithm");
            Algorithm algorithm;
            try {
                algorithm = Algorithms.byName(scalar(algorithmNode, "algorithm"));
            } catch (IllegalArgumentException e) {
                throw error(algorithmNode, e.getMessage());
            }
            Node permitsNode = limitFields.require("permits");
            long permits = integer(permitsNode, "permits", 1, Limit.MAX_PERMITS);
            Node periodNode = limitFields.require("period");
            Duration period = period(periodNode);
            Limit limit;
            try {
                limit = Limit.of(algorithm, permits, period);
            } catch (IllegalArgumentException e) {
                throw error(limitNode, e.getMessage());
            }
            if (limitFields.has("burst")) {
                Node burstNode = limitFields.get("burst");
                try {
                    limit = limit.withBurst(integer(burstNode, "burst", 1, Limit.MAX_PERMITS));
                } catch (IllegalArgumentException e) {
                    throw error(burstNode, e.getMessage());
                }
            }
            try {
                limit = limit.named(namePrefix + name);
            } catch (IllegalArgumentException e) {
                throw error(nameNode, e.getMessage());
            }
            rules.add(new LimitRule(limit, limitFields.has("shadow") && bool(limitFields.get("shadow"))));
        }
        if (rules.isEmpty()) {
            throw error(node, "a list of limits must not be empty");
        }
        return rules;
    }

    private Set<String> methods(Node node) {
        List<Node> methodNodes = node instanceof SequenceNode ? list(node, "method") : List.of(node);
        Set<String> methods = new LinkedHashSet<>();
        for (Node methodNode : methodNodes) {
            String method = scalar(methodNode, "method");
            if (!METHOD.matcher(method).matches()) {
                throw error(methodNode, "method must be letters only, such as POST: '" + method + "'");
            }
            methods.add(method.toUpperCase(Locale.ROOT));
        }
        return methods;
    }

    private Duration period(Node node) {
        String text = scalar(node, "period");
        Matcher matcher = PERIOD.matcher(text);
        if (!matcher.matches()) {
            throw error(node, "period must be a whole number and a unit (us, ms, s, m, h, d), such as 1s or 1d: '"
                    + text + "'");
        }
        long amount;
        try {
            amount = Long.parseLong(matcher.group(1).replace("_", ""));
        } catch (NumberFormatException e) {
            throw error(node, "period is too long: '" + text + "'");
        }
        ChronoUnit unit = switch (matcher.group(2)) {
            case "us" -> ChronoUnit.MICROS;
            case "ms" -> ChronoUnit.MILLIS;
            case "s" -> ChronoUnit.SECONDS;
            case "m" -> ChronoUnit.MINUTES;
            case "h" -> ChronoUnit.HOURS;
            default -> ChronoUnit.DAYS;
        };
        if (amount < 1 || amount > Limit.MAX_PERIOD.toNanos() / unit.getDuration().toNanos()) {
            throw error(node, "period must be from 1us to " + Limit.MAX_PERIOD.toDays() + "d: '" + text + "'");
        }
        return Duration.of(amount, unit);
    }

    private long integer(Node node, String what, long min, long max) {
        String text = scalar(node, what);
        if (!INTEGER.matcher(text).matches()) {
            throw error(node, what + " must be a whole number: '" + text + "'");
        }
        long value;
        try {
            value = Long.parseLong(text.replace("_", ""));
        } catch (NumberFormatException e) {
            throw error(node, what + " is too large: " + text);
        }
        if (value < 0) {
            throw error(node, what + " must not be negative: " + value);
        }
        if (value < min || value > max) {
            throw error(node, what + " must be in " + min + ".." + max + ": " + value);
        }
        return value;
    }

    private boolean bool(Node node) {
        String text = scalar(node, "a flag");
        if (text.equals("true")) {
            return true;
        }
        if (text.equals("false")) {
            return false;
        }
        throw error(node, "expected true or false, got '" + text + "'");
    }

    private FailurePolicy failurePolicy(Node node) {
        String text = scalar(node, "failure-policy");
        switch (text) {
            case "fail-open":
                return FailurePolicy.FAIL_OPEN;
            case "fail-closed":
                return FailurePolicy.FAIL_CLOSED;
            default:
                throw error(node, "failure-policy must be fail-open or fail-closed, got '" + text + "'");
        }
    }

    private String name(Node node) {
        String name = scalar(node, "name");
        if (!NAME.matcher(name).matches()) {
            throw error(node, "a name is a letter or digit, then letters, digits, '-' or '_': '" + name + "'");
        }
        return name;
    }

    private String scalar(Node node, String what) {
        if (!(node instanceof ScalarNode)) {
            throw error(node, what + ": expected a single value, got " + kind(node));
        }
        return ((ScalarNode) node).getValue();
    }

    private List<Node> list(Node node, String what) {
        if (!(node instanceof SequenceNode)) {
            throw error(node, what + ": expected a list, got " + kind(node));
        }
        return ((SequenceNode) node).getValue();
    }

    private Fields fields(Node node, String what, Set<String> allowed) {
        if (!(node instanceof MappingNode)) {
            throw error(node, what + ": expected a mapping of fields, got " + kind(node));
        }
        Map<String, Node> values = new HashMap<>();
        for (NodeTuple tuple : ((MappingNode) node).getValue()) {
            Node keyNode = tuple.getKeyNode();
            String key = scalar(keyNode, "a field name");
            if (!allowed.contains(key)) {
                throw error(keyNode, "unknown field '" + key + "' in " + what + " (expected one of "
                        + new TreeSet<>(allowed) + ")");
            }
            if (values.put(key, tuple.getValueNode()) != null) {
                throw error(keyNode, "field '" + key + "' appears twice in " + what);
            }
        }
        return new Fields(node, what, values);
    }

    private static String kind(Node node) {
        if (node instanceof ScalarNode) {
            String value = ((ScalarNode) node).getValue();
            return value.isEmpty() ? "nothing" : "'" + value + "'";
        }
        return node instanceof SequenceNode ? "a list" : "a mapping";
    }

    private static String syntaxReason(MarkedYAMLException e) {
        String problem = e.getProblem() == null ? "" : e.getProblem();
        String context = e.getContext() == null ? "" : e.getContext();
        return context.isEmpty() ? problem : problem + " (" + context + ")";
    }

    /** An error at {@code node}; {@code reason} is an exception's message, which may be missing. */
    private PolicyConfigException error(Node node, @Nullable String reason) {
        return new PolicyConfigException(file, node.getStartMark().getLine() + 1,
                Objects.toString(reason, "invalid value"), null);
    }

    /** The fields of one mapping node, each known and present at most once. */
    private final class Fields {
        private final Node node;
        private final String what;
        private final Map<String, Node> values;

        Fields(Node node, String what, Map<String, Node> values) {
            this.node = node;
            this.what = what;
            this.values = values;
        }

        boolean has(String field) {
            return values.containsKey(field);
        }

        /** A field that {@link #has} says is there. */
        Node get(String field) {
            return require(field);
        }

        Node require(String field) {
            Node value = values.get(field);
            if (value == null) {
                throw error(node, what + " needs the field '" + field + "'");
            }
            return value;
        }
    }
}
