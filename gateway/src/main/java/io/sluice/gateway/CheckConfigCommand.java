package io.sluice.gateway;

import io.sluice.core.PolicyCheck;
import io.sluice.core.PolicyConfig;
import io.sluice.core.PolicyProblem;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The {@code check-config} command: checks a config file as the gateway would load it, the
 * policy (every problem at once, by {@link PolicyConfig#check}) and the gateway's {@code store:}
 * and {@code http:} sections, without starting anything.
 */
@Command(name = "check-config", mixinStandardHelpOptions = true, versionProvider = Sluice.Version.class,
        description = {
            "Checks a config file (the policy, and the gateway's store: and http: sections) and prints "
                    + "every problem of the policy and of the gateway's sections as "
                    + "file:line: reason, by line. Exits with 0 when the file is usable, 1 when not.",
            "Connects to nothing: a store that cannot be reached shows only when the gateway starts.",
            ""})
final class CheckConfigCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The config file.")
    private Path file;

    @Override
    public Integer call() {
        PolicyCheck policy = PolicyConfig.check(file);
        List<PolicyProblem> problems = new ArrayList<>(policy.problems());
        problems.addAll(GatewayConfig.check(file));
        if (!problems.isEmpty()) {
            PrintWriter err = spec.commandLine().getErr();
            problems.stream().sorted(Comparator.comparingInt(PolicyProblem::line)).forEach(err::println);
            err.println(problems.size() + (problems.size() == 1 ? " problem" : " problems"));
            err.flush();
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        GatewayConfig gateway = GatewayConfig.load(file);
        out.println(file + ": OK: " + policy.config().orElseThrow() + ", store " + gateway.store().kind()
                + (gateway.store().mode() == null ? "" : " " + gateway.store().mode()));
        out.flush();
        return 0;
    }
}
