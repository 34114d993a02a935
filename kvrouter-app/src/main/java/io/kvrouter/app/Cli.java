package io.kvrouter.app;

import io.kvrouter.config.ConfigException;
import io.kvrouter.config.ConfigLoader;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.Settings;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The command line of {@code router.jar}. The router's options are generated from {@link Settings}
 * ({@link SettingOptions}), so {@code --help}, variables and the YAML file always agree; picocli
 * parses them as raw strings and {@link ConfigLoader} applies precedence and validation.
 */
public final class Cli {
  /** Exit code for invalid usage or configuration, as picocli uses. */
  public static final int USAGE_ERROR = 2;

  private Cli() {}

  /**
   * Runs the command. Returns the exit code when the process should exit now, or empty when a
   * server was started and keeps the process alive.
   */
  public static OptionalInt run(String[] args, Map<String, String> env) {
    return run(args, env, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
  }

  static OptionalInt run(String[] args, Map<String, String> env, PrintWriter out, PrintWriter err) {
    CommandLine commandLine = new CommandLine(routerSpec());
    commandLine.addSubcommand("worker", new WorkerCommand().spec());
    commandLine.addSubcommand("simulate", new SimulateCommand());
    commandLine.addSubcommand("bench", new BenchCommand());
    commandLine.setOut(out);
    commandLine.setErr(err);
    ParseResult parsed;
    try {
      parsed = commandLine.parseArgs(args);
    } catch (ParameterException e) {
      err.println("error: " + e.getMessage());
      err.println("Run with --help to see every option.");
      return OptionalInt.of(USAGE_ERROR);
    }
    Integer helpExit = CommandLine.executeHelpRequest(parsed);
    if (helpExit != null) {
      return OptionalInt.of(helpExit);
    }
    if (parsed.hasSubcommand()) {
      if (!parsed.matchedOptions().isEmpty()) {
        String name = parsed.subcommand().commandSpec().name();
        err.println(
            "error: options before '"
                + name
                + "' are the router's and '"
                + name
                + "' does not"
                + " use them; put its options after '"
                + name
                + "' (java -jar router.jar "
                + name
                + " --help)");
        return OptionalInt.of(USAGE_ERROR);
      }
      return ((Subcommand) parsed.subcommand().commandSpec().userObject()).run(env);
    }
    RouterConfig config;
    try {
      config = ConfigLoader.load(flags(parsed), env, SettingOptions.configFile(parsed));
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return OptionalInt.of(USAGE_ERROR);
    }
    return startRouter(config, err);
  }

  private static OptionalInt startRouter(RouterConfig config, PrintWriter err) {
    RouterApplication app;
    try {
      app =
          RouterApplication.start(config, RouterApplication.defaultVertxOptions())
              .toCompletionStage()
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return OptionalInt.of(USAGE_ERROR);
    } catch (Exception e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      err.println("error: the router could not start: " + cause.getMessage());
      return OptionalInt.of(1);
    }
    SignalShutdown.install("router", app::stop, app::endGracePeriod);
    app.announce();
    return OptionalInt.empty();
  }

  static CommandSpec routerSpec() {
    CommandSpec spec = CommandSpec.create().name("java -jar router.jar");
    spec.mixinStandardHelpOptions(true);
    spec.version("kvrouter " + version());
    spec.usageMessage()
        .description(
            SettingOptions.description(
                "KV-aware router and OpenAI-compatible frontend for LLM inference workers."))
        .footerHeading("%nCommands:%n")
        .footer(
            "  worker   Run one simulated worker (java -jar router.jar worker --help).",
            "  simulate Compare routing policies on a trace in virtual time"
                + " (java -jar router.jar simulate --help).",
            "  bench    Replay a Mooncake trace against a running router and measure latency"
                + " (java -jar router.jar bench --help).");
    SettingOptions.add(spec, Settings.ALL, "config/router.yaml");
    return spec;
  }

  static Map<String, List<String>> flags(ParseResult parsed) {
    return SettingOptions.flags(parsed, Settings.ALL);
  }

  private static String version() {
    String version = Cli.class.getPackage().getImplementationVersion();
    return version == null ? "development build" : version;
  }
}
