package io.sluice.core;

import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The result of checking a policy file: every problem it has, each with its file, line and
 * reason, or the policy when there is none. This is what {@code sluice check-config} prints.
 *
 * <pre>{@code
 * PolicyCheck check = PolicyConfig.check(Path.of("sluice.yaml"));
 * check.problems().forEach(System.err::println);   // sluice.yaml:14: unknown field 'permitz' in a limit ...
 * }</pre>
 *
 * <p>Problems are in the order of their lines. An element with a problem (a limit, a tier,
 * an endpoint) is skipped, so a later check that needs it (a cost above the capacity of a
 * limit that has a problem of its own) may find more once it is fixed. Immutable.
 */
public final class PolicyCheck {

    private final @Nullable PolicyConfig config;
    private final List<PolicyProblem> problems;

    PolicyCheck(@Nullable PolicyConfig config, List<PolicyProblem> problems) {
        if ((config == null) == problems.isEmpty()) {
            throw new IllegalArgumentException("a policy is checked either with problems or into a config");
        }
        this.config = config;
        this.problems = List.copyOf(problems);
    }

    /** Whether the file can be used: it has no problem. */
    public boolean valid() {
        return problems.isEmpty();
    }

    /** Every problem found, by line; empty when the file is valid. */
    public List<PolicyProblem> problems() {
        return problems;
    }

    /** The policy, when the file is valid. */
    public Optional<PolicyConfig> config() {
        return Optional.ofNullable(config);
    }

    /**
     * The policy.
     *
     * @throws PolicyConfigException listing every problem when the file is not valid
     */
    PolicyConfig orThrow() {
        if (config == null) {
            throw new PolicyConfigException(problems, null);
        }
        return config;
    }

    @Override
    public String toString() {
        return valid() ? "PolicyCheck[valid: " + config + "]" : "PolicyCheck[" + problems.size() + " problems]";
    }
}
