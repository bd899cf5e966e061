package io.sluice.gateway;

/** A gateway section ({@code store:} or {@code http:}) of a config file that cannot be used: {@code file:line: reason}. */
final class GatewayConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    GatewayConfigException(String file, int line, String reason) {
        super(file + ":" + line + ": " + reason);
    }
}
