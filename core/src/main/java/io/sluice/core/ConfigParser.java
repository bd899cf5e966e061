package io.sluice.core;

import io.sluice.algorithms.Algorithms;
import io.sluice.api.Algorithm;
import io.sluice.api.FailurePolicy;
import io.sluice.api.Limit;
import java.io.StringReader;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
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
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
import org.yaml.snakeyaml.reader.ReaderException;

/**
 * Reads a policy file into a {@link PolicyConfig}, checking everything before anything is
 * used, and finding every problem of the file, each with the line of the node it concerns.
 * Works on snakeyaml's node tree (not on constructed maps) so that every value keeps its line.
 *
 * <p>A problem makes the parser skip the element it is in (a limit, a tier, an endpoint, an
 * API key) and go on with the next, so that one run reports them all. An element that is
 * skipped still counts as written where that avoids a follow-up error: a tier whose limits
 * are wrong is still a tier that keys may name.
 */
final class ConfigParser {

    /**
     * The most characters a policy file may have: 8 MiB. While it is checked, a file is held
     * whole as a YAML node tree, about 25 bytes of heap per character (a 5.4 MB file of
     * 72,000 keys needed a 128 MB heap). SnakeYAML's own default, 3 MiB, is raised to this.
     * A bigger file is almost always a long {@code api-keys} list, which belongs in a
     * {@link TierResolver}.
     */
    static final int MAX_CHARACTERS = 8 * 1024 * 1024;
    /** Tier names listed at most in a message, so that a message stays short whatever the file. */
    private static final int MAX_NAMES_SHOWN = 10;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*");
    private static final Pattern PERIOD = Pattern.compile("(\\d[\\d_]*)(us|ms|s|m|h|d)");
    private static final Pattern INTEGER = Pattern.compile("[+-]?\\d[\\d_]*");
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]+");
    private static final String REJECT = "reject";
    private static final Set<String> LIMIT_FIELDS = Set.of("name", "algorithm", "permits", "period", "burst",
            "shadow", "failure-policy");
    private static final Set<String> LEASING_FIELDS = Set.of("share", "length-share", "min-tokens", "max-keys",
            "refill-ahead");
    private static final Pattern SHARE = Pattern.compile("(\\d+(?:\\.\\d+)?)(%?)");
    private static final Set<String> ENDPOINT_FIELDS = Set.of("name", "method", "path", "cost", "per-key",
            "global");

    private final String file;
    private final List<PolicyProblem> problems = new ArrayList<>();
    /** The file's {@code failure-policy}: every limit without one of its own carries it. */
    private FailurePolicy failurePolicy = FailurePolicy.FAIL_CLOSED;

    private ConfigParser(String file) {
        this.file = file;
    }

    /** Parses and checks a policy, finding every problem. */
    static PolicyCheck check(String yaml, String file) {
        ConfigParser parser = new ConfigParser(file);
        PolicyConfig config = parser.parseDocument(yaml);
        // Stable: problems on one line stay in the order they were found.
        parser.problems.sort(Comparator.comparingInt(PolicyProblem::line));
        return new PolicyCheck(parser.problems.isEmpty() ? config : null, parser.problems);
    }

    private @Nullable PolicyConfig parseDocument(String yaml) {
        if (yaml.length() > MAX_CHARACTERS) {
            problems.add(new PolicyProblem(file, 0, "the file has " + yaml.length() + " characters, more than the "
                    + "limit of " + MAX_CHARACTERS + "; list many API keys in a TierResolver instead "
                    + "(docs/configuration.md)"));
            return null;
        }
        Node root = compose(yaml);
        if (root == null) {
            return null;
        }
        // store and http configure the program that hosts the limiter (the sluice gateway), which reads them.
        Fields top = attempt(() -> fields(root, "the policy", Set.of("shadow", "failure-policy", "tiers",
                "anonymous", "api-keys", "endpoints", "leasing", "store", "http")));
        if (top == null) {
            return null;
        }
        // A value with a problem is reported; the default stands in while the rest is checked.
        boolean shadow = top.has("shadow") && Boolean.TRUE.equals(attempt(() -> bool(top.get("shadow"))));
        failurePolicy = Objects.requireNonNullElse(top.has("failure-policy")
                ? attempt(() -> failurePolicy(top.get("failure-policy"))) : null, FailurePolicy.FAIL_CLOSED);

        LeasePolicy leasing = top.has("leasing") ? attempt(() -> leasing(top.get("leasing"))) : null;

        Map<String, Tier> tiers = new LinkedHashMap<>();
        // Every tier name written, also of tiers skipped for a problem in their limits.
        Set<String> tierNames = new LinkedHashSet<>();
        if (top.has("tiers")) {
            List<Node> tierNodes = attempt(() -> list(top.get("tiers"), "tiers"));
            for (Node tierNode : tierNodes == null ? List.<Node>of() : tierNodes) {
                attempt(() -> tier(tierNode, tiers, tierNames));
            }
        }

        Anonymous anonymous = top.has("anonymous") ? attempt(() -> anonymous(top.get("anonymous"))) : null;
        boolean anonymousWritten = top.has("anonymous");

        String unknownKeyTier = null;
        Map<String, String> keyTiers = new HashMap<>();
        if (top.has("api-keys")) {
            Fields keysFields = attempt(() -> fields(top.get("api-keys"), "api-keys", Set.of("unknown", "keys")));
            if (keysFields != null && keysFields.has("unknown")) {
                unknownKeyTier = attempt(() -> unknownKeyTier(keysFields.get("unknown"), tierNames,
                        anonymousWritten));
            }
            if (keysFields != null && keysFields.has("keys")) {
                List<Node> keyNodes = attempt(() -> list(keysFields.get("keys"), "keys"));
                for (Node keyNode : keyNodes == null ? List.<Node>of() : keyNodes) {
                    attempt(() -> apiKey(keyNode, tierNames, keyTiers));
                }
            }
        }

        List<EndpointRule> endpoints = new ArrayList<>();
        Map<EndpointRule, Node> costNodes = new HashMap<>();
        if (top.has("endpoints")) {
            Set<String> names = new HashSet<>();
            List<Node> endpointNodes = attempt(() -> list(top.get("endpoints"), "endpoints"));
            for (Node endpointNode : endpointNodes == null ? List.<Node>of() : endpointNodes) {
                EndpointRule endpoint = attempt(() -> endpoint(endpointNode, names, costNodes));
                if (endpoint != null) {
                    endpoints.add(endpoint);
                }
            }
        }

        // Over the limits without a problem only: each cost problem found is real.
        checkCosts(tiers.values(), anonymous == null ? null : anonymous.tier(), endpoints, costNodes);
        if (!problems.isEmpty()) {
            return null;
        }
        return new PolicyConfig(file, shadow, failurePolicy, tiers, anonymous == null ? null : anonymous.tier(),
                unknownKeyTier, keyTiers, endpoints, anonymous == null ? 32 : anonymous.ipv4Prefix(),
                anonymous == null ? 64 : anonymous.ipv6Prefix(), leasing);
    }

    /** The node tree of the file; {@code null} (and a problem) when it is no YAML or empty. */
    private @Nullable Node compose(String yaml) {
        LoaderOptions options = new LoaderOptions();
        options.setCodePointLimit(MAX_CHARACTERS);
        try {
            Node root = new Yaml(new SafeConstructor(options)).compose(new StringReader(yaml));
            if (root == null) {
                problems.add(new PolicyProblem(file, 1, "the file is empty"));
            }
            return root;
        } catch (MarkedYAMLException e) {
            Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            problems.add(new PolicyProblem(file, mark == null ? 1 : mark.getLine() + 1,
                    "YAML syntax: " + syntaxReason(e)));
        } catch (ReaderException e) {
            problems.add(new PolicyProblem(file, lineOfCodePoint(yaml, e.getPosition()), "YAML syntax: "
                    + e.getMessage() + ": character " + String.format("U+%04X", e.getCodePoint())));
        } catch (YAMLException e) {
            problems.add(new PolicyProblem(file, 1, "YAML syntax: " + e.getMessage()));
        }
        return null;
    }

    /** The line (from 1) of the code point at {@code position}, counting line breaks as YAML does. */
    private static int lineOfCodePoint(String text, int position) {
        int end = text.offsetByCodePoints(0, Math.min(position, text.codePointCount(0, text.length())));
        int line = 1;
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (c == '\n' || (c == '\r' && (i + 1 >= text.length() || text.charAt(i + 1) != '\n'))) {
                line++;
            }
        }
        return line;
    }

    private Void tier(Node node, Map<String, Tier> tiers, Set<String> tierNames) {
        int before = problems.size();
        Fields fields = fields(node, "a tier", Set.of("name", "limits"));
        Node nameNode = fields.require("name");
        String name = name(nameNode);
        if (name.equals(Tier.ANONYMOUS) || name.equals(REJECT)) {
            throw error(nameNode, "'" + name + "' is reserved and cannot name a tier");
        }
        if (!tierNames.add(name)) {
            throw error(nameNode, "duplicate tier name '" + name + "'");
        }
        List<LimitRule> limits = limits(fields.require("limits"), "tier." + name + ".");
        if (limits != null && problems.size() == before) {
            tiers.put(name, new Tier(name, limits));
        }
        return null;
    }

    /**
     * The {@code leasing} section: local quota leasing on, with the policy's defaults for the
     * fields it does not give. {@code null} (and the problems) when a field is wrong.
     */
    private @Nullable LeasePolicy leasing(Node node) {
        // "leasing:" alone, or "leasing: {}", turns it on with the defaults.
        if (node instanceof ScalarNode && ((ScalarNode) node).getValue().isEmpty()) {
            return LeasePolicy.ofDefaults();
        }
        int before = problems.size();
        Fields fields = fields(node, "leasing", LEASING_FIELDS);
        LeasePolicy.Builder policy = LeasePolicy.custom();
        if (fields.has("share")) {
            Double share = attempt(() -> share(fields.get("share"), "share"));
            if (share != null) {
                policy.share(share);
            }
        }
        if (fields.has("length-share")) {
            Double lengthShare = attempt(() -> share(fields.get("length-share"), "length-share"));
            if (lengthShare != null) {
                policy.lengthShare(lengthShare);
            }
        }
        if (fields.has("min-tokens")) {
            Long minTokens = attempt(() -> integer(fields.get("min-tokens"), "min-tokens", 1, Long.MAX_VALUE));
            if (minTokens != null) {
                policy.minTokens(minTokens);
            }
        }
        if (fields.has("max-keys")) {
            Long maxKeys = attempt(() -> integer(fields.get("max-keys"), "max-keys", 1, Long.MAX_VALUE));
            if (maxKeys != null) {
                policy.maxKeys(maxKeys);
            }
        }
        if (fields.has("refill-ahead")) {
            Boolean refillAhead = attempt(() -> bool(fields.get("refill-ahead")));
            if (refillAhead != null) {
                policy.refillAhead(refillAhead);
            }
        }
        return problems.size() > before ? null : policy.build();
    }

    /** A share in (0, 1], written as a percentage ({@code 10%}) or a fraction ({@code 0.1}). */
    private double share(Node node, String what) {
        String text = scalar(node, what);
        Matcher matcher = SHARE.matcher(text);
        double share = matcher.matches() ? Double.parseDouble(matcher.group(1))
                / (matcher.group(2).isEmpty() ? 1 : 100) : Double.NaN;
        if (!(share > 0 && share <= 1)) {
            throw error(node, what + " must be a share above 0% and at most 100%, such as 10% or 0.1: '" + text + "'");
        }
        return share;
    }

    /** The {@code anonymous} section. */
    private record Anonymous(Tier tier, int ipv4Prefix, int ipv6Prefix) {
    }

    private @Nullable Anonymous anonymous(Node node) {
        int before = problems.size();
        Fields fields = fields(node, "anonymous", Set.of("ipv4-prefix", "ipv6-prefix", "limits"));
        Long ipv4Prefix = fields.has("ipv4-prefix")
                ? attempt(() -> integer(fields.get("ipv4-prefix"), "ipv4-prefix", 1, 32)) : Long.valueOf(32);
        Long ipv6Prefix = fields.has("ipv6-prefix")
                ? attempt(() -> integer(fields.get("ipv6-prefix"), "ipv6-prefix", 1, 128)) : Long.valueOf(64);
        List<LimitRule> limits = attempt(() -> limits(fields.require("limits"), Tier.ANONYMOUS + "."));
        if (ipv4Prefix == null || ipv6Prefix == null || limits == null || problems.size() > before) {
            return null;
        }
        return new Anonymous(new Tier(Tier.ANONYMOUS, limits), ipv4Prefix.intValue(), ipv6Prefix.intValue());
    }

    /** The tier of unknown keys: {@code null} to reject them. */
    private @Nullable String unknownKeyTier(Node node, Set<String> tierNames, boolean anonymousWritten) {
        String unknown = scalar(node, "unknown");
        if (unknown.equals(Tier.ANONYMOUS)) {
            if (!anonymousWritten) {
                throw error(node, "unknown keys are limited as anonymous callers, but there is no 'anonymous' section");
            }
            return Tier.ANONYMOUS;
        }
        if (unknown.equals(REJECT)) {
            return null;
        }
        if (!tierNames.contains(unknown)) {
            throw error(node, "unknown: expected 'reject', 'anonymous' or a tier name " + shown(tierNames)
                    + ", got '" + unknown + "'");
        }
        return unknown;
    }

    private Void apiKey(Node node, Set<String> tierNames, Map<String, String> keyTiers) {
        Fields fields = fields(node, "an API key", Set.of("key", "tier"));
        Node valueNode = fields.require("key");
        String key = scalar(valueNode, "key");
        if (key.isEmpty()) {
            throw error(valueNode, "an API key must not be empty");
        }
        Node tierNode = fields.require("tier");
        String tier = scalar(tierNode, "tier");
        if (!tierNames.contains(tier)) {
            throw error(tierNode, "no tier named '" + tier + "' (tiers: " + shown(tierNames) + ")");
        }
        if (keyTiers.put(key, tier) != null) {
            throw error(valueNode, "duplicate API key (listed twice)");
        }
        return null;
    }

    private @Nullable EndpointRule endpoint(Node node, Set<String> names, Map<EndpointRule, Node> costNodes) {
        int before = problems.size();
        Fields fields = fields(node, "an endpoint", ENDPOINT_FIELDS);
        String name = attempt(() -> name(fields.require("name")));
        if (name != null && !names.add(name)) {
            report(fields.get("name"), "duplicate endpoint name '" + name + "'");
        }
        Set<String> methods = fields.has("method") ? attempt(() -> methods(fields.get("method"))) : Set.of();
        PathPattern path = attempt(() -> path(fields.require("path")));
        Long cost = fields.has("cost")
                ? attempt(() -> integer(fields.get("cost"), "cost", 1, Limit.MAX_PERMITS)) : Long.valueOf(1);
        String prefix = "endpoint." + (name == null ? "" : name) + ".";
        List<LimitRule> perKey = fields.has("per-key")
                ? attempt(() -> limits(fields.get("per-key"), prefix + "per-key.")) : List.of();
        List<LimitRule> global = fields.has("global")
                ? attempt(() -> limits(fields.get("global"), prefix + "global.")) : List.of();
        if (name == null || methods == null || path == null || cost == null || perKey == null || global == null
                || problems.size() > before) {
            return null;
        }
        EndpointRule endpoint = new EndpointRule(name, methods, path, cost, perKey, global);
        costNodes.put(endpoint, fields.has("cost") ? fields.get("cost") : fields.get("name"));
        return endpoint;
    }

    private PathPattern path(Node node) {
        try {
            return PathPattern.parse(scalar(node, "path"));
        } catch (IllegalArgumentException e) {
            throw error(node, reason(e));
        }
    }

    /**
     * A cost above a limit's capacity would deny every such request: almost surely a mistake.
     * Every tier may call every endpoint, so an endpoint's cost is checked against the
     * smallest capacity of all tiers' limits: linear in the file, where checking each tier
     * with each endpoint would be tiers x endpoints.
     */
    private void checkCosts(Collection<Tier> tiers, @Nullable Tier anonymous, List<EndpointRule> endpoints,
                            Map<EndpointRule, Node> costNodes) {
        List<Limit> clientLimits = new ArrayList<>();
        tiers.forEach(tier -> tier.limits().forEach(rule -> clientLimits.add(rule.limit())));
        if (anonymous != null) {
            anonymous.limits().forEach(rule -> clientLimits.add(rule.limit()));
        }
        clientLimits.sort(Comparator.comparingLong(Limit::burst));
        long[] capacities = clientLimits.stream().mapToLong(Limit::burst).toArray();
        for (EndpointRule endpoint : endpoints) {
            List<Limit> exceeded = new ArrayList<>();
            int clientExceeded = countBelow(capacities, endpoint.cost());
            if (clientExceeded > 0) {
                exceeded.add(clientLimits.get(0));
            }
            Stream.concat(endpoint.perKey().stream(), endpoint.global().stream()).map(LimitRule::limit)
                    .filter(limit -> limit.burst() < endpoint.cost()).forEach(exceeded::add);
            if (!exceeded.isEmpty()) {
                exceeded.sort(Comparator.comparingLong(Limit::burst));
                Limit smallest = exceeded.get(0);
                int more = exceeded.size() - 1 + Math.max(0, clientExceeded - 1);
                report(Objects.requireNonNull(costNodes.get(endpoint)), "cost " + endpoint.cost()
                        + " of endpoint '" + endpoint.name() + "' exceeds the capacity " + smallest.burst() + " of limit '" + smallest.name() + "'"
                        + (more > 0 ? " (and of " + more + " more limits)" : "")
                        + ": every such request would be denied");
            }
        }
    }

    /** How many of the sorted values are below {@code bound}. */
    private static int countBelow(long[] sorted, long bound) {
        int low = 0;
        int high = sorted.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (sorted[middle] < bound) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** The limits of a list; {@code null} when one of them has a problem (each is reported). */
    private @Nullable List<LimitRule> limits(Node node, String namePrefix) {
        List<Node> limitNodes = list(node, "limits");
        if (limitNodes.isEmpty()) {
            throw error(node, "a list of limits must not be empty");
        }
        int before = problems.size();
        List<LimitRule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Node limitNode : limitNodes) {
            LimitRule rule = attempt(() -> limit(limitNode, namePrefix, names));
            if (rule != null) {
                rules.add(rule);
            }
        }
        return problems.size() > before ? null : rules;
    }

    private @Nullable LimitRule limit(Node node, String namePrefix, Set<String> names) {
        int before = problems.size();
        Fields fields = fields(node, "a limit", LIMIT_FIELDS);
        String name = attempt(() -> name(fields.require("name")));
        if (name != null && !names.add(name)) {
            report(fields.get("name"), "duplicate limit name '" + name + "'");
        }
        Algorithm algorithm = attempt(() -> algorithm(fields.require("algorithm")));
        Long permits = attempt(() -> integer(fields.require("permits"), "permits", 1, Limit.MAX_PERMITS));
        Duration period = attempt(() -> period(fields.require("period")));
        Long burst = fields.has("burst")
                ? attempt(() -> integer(fields.get("burst"), "burst", 1, Limit.MAX_PERMITS)) : null;
        Boolean shadow = fields.has("shadow") ? attempt(() -> bool(fields.get("shadow"))) : Boolean.FALSE;
        FailurePolicy limitFailurePolicy = fields.has("failure-policy")
                ? attempt(() -> failurePolicy(fields.get("failure-policy"))) : failurePolicy;
        if (name == null || algorithm == null || permits == null || period == null || shadow == null
                || limitFailurePolicy == null
                || problems.size() > before) {
            return null;
        }
        Limit limit;
        try {
            limit = Limit.of(algorithm, permits, period);
        } catch (IllegalArgumentException e) {
            throw error(node, reason(e));
        }
        if (burst != null) {
            try {
                limit = limit.withBurst(burst);
            } catch (IllegalArgumentException e) {
                throw error(fields.get("burst"), reason(e));
            }
        }
        try {
            limit = limit.named(namePrefix + name);
        } catch (IllegalArgumentException e) {
            throw error(fields.get("name"), reason(e));
        }
        return new LimitRule(limit.withFailurePolicy(limitFailurePolicy), shadow);
    }

    private Algorithm algorithm(Node node) {
        try {
            return Algorithms.byName(scalar(node, "algorithm"));
        } catch (IllegalArgumentException e) {
            throw error(node, reason(e));
        }
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
            case "fallback":
                return FailurePolicy.FALLBACK;
            default:
                throw error(node, "failure-policy must be fail-open, fail-closed or fallback, got '" + text + "'");
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

    /** The known fields of a mapping; an unknown or repeated field is reported, and the others still read. */
    private Fields fields(Node node, String what, Set<String> allowed) {
        if (!(node instanceof MappingNode)) {
            throw error(node, what + ": expected a mapping of fields, got " + kind(node));
        }
        Map<String, Node> values = new HashMap<>();
        for (NodeTuple tuple : ((MappingNode) node).getValue()) {
            Node keyNode = tuple.getKeyNode();
            String key = attempt(() -> scalar(keyNode, "a field name"));
            if (key == null) {
                continue;
            }
            if (!allowed.contains(key)) {
                report(keyNode, "unknown field '" + key + "' in " + what + " (expected one of "
                        + new TreeSet<>(allowed) + ")");
            } else if (values.putIfAbsent(key, tuple.getValueNode()) != null) {
                report(keyNode, "field '" + key + "' appears twice in " + what);
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

    /** Runs one part of the check; a problem in it is recorded, and the part is {@code null}. */
    private <T> @Nullable T attempt(Supplier<T> part) {
        try {
            return part.get();
        } catch (Invalid e) {
            problems.add(e.problem);
            return null;
        }
    }

    /** What an exception of the API says is wrong with a value. */
    private static String reason(IllegalArgumentException e) {
        return Objects.requireNonNullElse(e.getMessage(), e.toString());
    }

    private void report(Node node, String reason) {
        problems.add(problem(node, reason));
    }

    /** A problem that ends the part of the file being read; {@link #attempt} records it. */
    private Invalid error(Node node, String reason) {
        return new Invalid(problem(node, reason));
    }

    private PolicyProblem problem(Node node, String reason) {
        return new PolicyProblem(file, node.getStartMark().getLine() + 1, reason);
    }

    /** At most {@value #MAX_NAMES_SHOWN} names, so that a message or a log line stays short. */
    static String shown(Collection<String> names) {
        if (names.size() <= MAX_NAMES_SHOWN) {
            return names.toString();
        }
        return names.stream().limit(MAX_NAMES_SHOWN).collect(Collectors.joining(", ", "[", ", ... ("
                + (names.size() - MAX_NAMES_SHOWN) + " more)]"));
    }

    /** Carries a problem out of the part of the file it ends; never leaves the parser. */
    private static final class Invalid extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final transient PolicyProblem problem;

        Invalid(PolicyProblem problem) {
            super(problem.reason(), null, false, false);
            this.problem = problem;
        }
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

        /** The value of a field that {@link #has} it. */
        Node get(String field) {
            return Objects.requireNonNull(values.get(field), field);
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
