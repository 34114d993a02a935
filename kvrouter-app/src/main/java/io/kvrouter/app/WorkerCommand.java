package io.kvrouter.app;

import io.kvrouter.config.ConfigException;
import io.kvrouter.config.WorkerConfig;
import io.kvrouter.config.WorkerConfigLoader;
import io.kvrouter.config.WorkerSettings;
import io.kvrouter.preprocess.ModelAssets;
import java.io.PrintWriter;
import java.util.Map;
import java.util.OptionalInt;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code router.jar worker}: one simulated worker as its own process. Its options are generated
 * from {@link WorkerSettings} and read by {@link WorkerConfigLoader}, as the router's are; {@link
 * WorkerApplication} starts it.
 */
final class WorkerCommand implements Subcommand {
  private final CommandSpec spec;

  WorkerCommand() {
    spec = CommandSpec.wrapWithoutInspection(this).name("worker");
    spec.mixinStandardHelpOptions(true);
    spec.usageMessage()
        .description(
            SettingOptions.description(
                "Run one simulated worker that serves Dynamo's TCP request plane on --port.",
                "The router reaches it with --worker id=w1,address=HOST:PORT. The engine options"
                    + " are the router's --mock-* options, without mock-."));
    SettingOptions.add(spec, WorkerSettings.ALL, "config/worker.yaml");
  }

  /** The command's picocli model, whose user object is this command. */
  CommandSpec spec() {
    return spec;
  }

  @Override
  public OptionalInt run(Map<String, String> env) {
    PrintWriter err = spec.commandLine().getErr();
    ParseResult parsed = spec.commandLine().getParseResult();
    WorkerConfig config;
    try {
      config =
          WorkerConfigLoader.load(
              SettingOptions.flags(parsed, WorkerSettings.ALL),
              env,
              SettingOptions.configFile(parsed));
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    }
    ModelAssets assets;
    try {
      assets =
          config.modelPath() == null ? ModelAssets.demo() : ModelAssets.load(config.modelPath());
    } catch (Exception e) {
      err.println(
          "error: cannot load "
              + WorkerSettings.MODEL_PATH.flag()
              + " "
              + config.modelPath()
              + ": "
              + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    }
    return WorkerApplication.start(config, assets, spec.commandLine().getOut(), err);
  }
}
