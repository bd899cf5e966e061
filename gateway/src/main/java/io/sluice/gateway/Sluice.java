package io.sluice.gateway;

import io.sluice.simulator.SimulateCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code sluice} program. Its subcommands: {@code gateway} runs a rate-limiting reverse
 * proxy in front of an API; {@code check-config} checks a config file; {@code simulate} (from
 * {@code sluice-simulator}) runs a simulated fleet of gateway instances on one store and
 * compares what they admit with what one exact limiter would.
 *
 * <pre>{@code
 * java -jar sluice-gateway.jar gateway --config sluice.yaml --upstream http://localhost:3000
 * java -jar sluice-gateway.jar check-config sluice.yaml
 * java -jar sluice-gateway.jar simulate --instances 20 --balancer skewed
 * }</pre>
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, versionProvider = Sluice.Version.class,
        description = "Distributed rate limiting for public APIs.",
        subcommands = {GatewayCommand.class, CheckConfigCommand.class, SimulateCommand.class})
public final class Sluice implements Runnable {

    @Spec
    private CommandSpec spec;

    /** Runs the program with the command-line {@code args} and exits with its exit code. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with every subcommand. */
    static CommandLine commandLine() {
        return new CommandLine(new Sluice());
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** The version from the jar's manifest. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Sluice.class.getPackage().getImplementationVersion();
            return new String[] {"sluice " + (version != null ? version : "(development build)")};
        }
    }
}
