package io.sluice.gateway;

import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyConfigException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The {@code check-config} command: checks a config file as the gateway would load it, the
 * policy and the gateway's {@code store:} and {@code http:} sections, without starting anything.
 */
@Command(name = "check-config", mixinStandardHelpOptions = true, versionProvider = Sluice.Version.class,
        description = {
            "Checks a config file (the policy, and the gateway's store: and http: sections) and prints "
                    + "each problem as file:line: reason. Exits with 0 when the file is usable, 1 when not.",
            "Connects to nothing: a store that cannot be reached shows only when the gateway starts.",
            ""})
final class CheckConfigCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The config file.")
    private Path file;

    @Override
    public Integer call() {
        List<String> problems = new ArrayList<>();
        PolicyConfig policy = null;
        try {
            policy = PolicyConfig.load(file);
        } catch (PolicyConfigException e) {
            problems.add(e.getMessage());
        }
        GatewayConfig gateway = null;
        try {
            gateway = GatewayConfig.load(file);
        } catch (GatewayConfigException e) {
            problems.add(e.getMessage());
        }
        if (!problems.isEmpty()) {
            PrintWriter err = spec.commandLine().getErr();
            problems.forEach(err::println);
            err.flush();
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(file + ": OK: " + policy + ", store " + gateway.store().kind()
                + (gateway.store().mode() == null ? "" : " " + gateway.store().mode()));
        out.flush();
        return 0;
    }
}
