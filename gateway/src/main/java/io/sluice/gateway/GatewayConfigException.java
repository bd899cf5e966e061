package io.sluice.gateway;

import io.sluice.core.PolicyProblem;

/** A gateway section ({@code store:} or {@code http:}) of a config file that cannot be used: {@code file:line: reason}. */
final class GatewayConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient PolicyProblem problem;

    GatewayConfigException(String file, int line, String reason) {
        super(file + ":" + line + ": " + reason);
        this.problem = new PolicyProblem(file, line, reason);
    }

    /** The problem, as the policy's problems are reported. */
    PolicyProblem problem() {
        return problem;
    }
}
