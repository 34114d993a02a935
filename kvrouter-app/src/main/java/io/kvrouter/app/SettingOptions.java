package io.kvrouter.app;

import io.kvrouter.config.Setting;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * A command's options generated from its settings table, so {@code --help}, variables and the YAML
 * file always agree: picocli parses them as raw strings and the config loader applies precedence
 * and validation.
 */
final class SettingOptions {
  private SettingOptions() {}

  /** A command's {@code --help} description: {@code lines}, then where its settings come from. */
  static String[] description(String... lines) {
    List<String> description = new ArrayList<>(List.of(lines));
    description.add(
        "Each option can also be set by its environment variable or in the YAML file of"
            + " --config (key = option name without dashes).");
    description.add("Precedence: option > environment variable > file > default.");
    return description.toArray(String[]::new);
  }

  /** Adds an option for each setting of {@code table} to {@code spec}, and {@code --config}. */
  static void add(CommandSpec spec, List<Setting<?>> table, String exampleFile) {
    for (Setting<?> setting : table) {
      OptionSpec.Builder option =
          OptionSpec.builder(flagNames(setting)).description(describe(setting));
      if (setting.isSwitch()) {
        option.negatable(true).type(Boolean.class).arity("0");
      } else {
        option
            .paramLabel(setting.paramLabel())
            .type(setting.repeatable() ? List.class : String.class)
            .auxiliaryTypes(String.class)
            .arity("1");
      }
      spec.addOption(option.build());
    }
    spec.addOption(
        OptionSpec.builder("--config")
            .paramLabel("FILE")
            .description("YAML file of settings (see " + exampleFile + ").")
            .type(String.class)
            .arity("1")
            .build());
  }

  /** The raw values given on the command line, by setting name. */
  static Map<String, List<String>> flags(ParseResult parsed, List<Setting<?>> table) {
    Map<String, List<String>> flags = new HashMap<>();
    for (OptionSpec option : parsed.matchedOptions()) {
      String name = settingName(option, table);
      Object value = option.getValue();
      List<String> values = new ArrayList<>();
      if (value instanceof List<?> list) {
        list.forEach(v -> values.add(String.valueOf(v)));
      } else if (value != null) {
        values.add(String.valueOf(value));
      }
      flags.put(name, values);
    }
    return flags;
  }

  /** The file of {@code --config}, or {@code null}. */
  static Path configFile(ParseResult parsed) {
    String file = parsed.matchedOptionValue("--config", null);
    return file == null ? null : Path.of(file);
  }

  private static String[] flagNames(Setting<?> setting) {
    List<String> names = new ArrayList<>();
    names.add(setting.flag());
    setting.aliases().forEach(alias -> names.add("--" + alias));
    return names.toArray(String[]::new);
  }

  /** The setting an option stands for, by any of its flag names. */
  private static String settingName(OptionSpec option, List<Setting<?>> table) {
    for (Setting<?> setting : table) {
      for (String name : option.names()) {
        if (name.equals(setting.flag())) {
          return setting.name();
        }
      }
    }
    return option.longestName().substring(2);
  }

  private static String describe(Setting<?> setting) {
    StringBuilder text = new StringBuilder(setting.description());
    if (setting.envVar() != null) {
      text.append(" Env: ").append(setting.envVar()).append('.');
    }
    if (setting.defaultValue() != null) {
      text.append(" Default: ").append(setting.defaultValue()).append('.');
    }
    text.append(" Valid: ").append(setting.expected()).append('.');
    return text.toString();
  }
}
