package io.kvrouter.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The values of one command's settings table, from its sources. For each setting the first source
 * that has it wins: command-line flag, then environment variable, then the YAML file, then the
 * default. A value that does not parse fails with a {@link ConfigException} naming the setting,
 * where the value came from and what is valid; nothing falls back silently.
 */
final class SettingValues {
  private final Map<String, List<String>> flags;
  private final Map<String, String> env;
  private final Map<String, Object> file;
  private final String fileName;

  private SettingValues(
      Map<String, List<String>> flags,
      Map<String, String> env,
      Map<String, Object> file,
      String fileName) {
    this.flags = flags;
    this.env = env;
    this.file = file;
    this.fileName = fileName;
  }

  /**
   * @param flags raw flag values by setting name (as given on the command line)
   * @param env the process environment
   * @param configFile the YAML file of {@code --config}, or {@code null}
   * @param table every setting of the command: the keys the file may hold
   */
  static SettingValues of(
      Map<String, List<String>> flags,
      Map<String, String> env,
      Path configFile,
      List<Setting<?>> table) {
    Map<String, Object> file = configFile == null ? Map.of() : readYaml(configFile, table);
    String fileName = configFile == null ? null : configFile.toString();
    return new SettingValues(flags, env, file, fileName);
  }

  /** The single value of {@code setting}, or {@code null} when no source has it. */
  <T> T value(Setting<T> setting) {
    List<T> all = values(setting);
    return all.isEmpty() ? null : all.get(all.size() - 1);
  }

  <T> List<T> values(Setting<T> setting) {
    List<String> fromFlags = flags.get(setting.name());
    if (fromFlags != null && !fromFlags.isEmpty()) {
      return parseAll(setting, fromFlags, "from " + setting.flag());
    }
    if (setting.envVar() != null && env.containsKey(setting.envVar())) {
      return parseAll(setting, List.of(env.get(setting.envVar())), "from " + setting.envVar());
    }
    if (file.containsKey(setting.name())) {
      return parseAll(setting, fileValues(setting), "from " + setting.name() + " in " + fileName);
    }
    if (setting.defaultValue() != null) {
      return parseAll(setting, List.of(setting.defaultValue()), "default");
    }
    return List.of();
  }

  /** Whether a flag, variable or the file gives {@code setting}, rather than its default. */
  boolean given(Setting<?> setting) {
    List<String> fromFlags = flags.get(setting.name());
    return (fromFlags != null && !fromFlags.isEmpty())
        || (setting.envVar() != null && env.containsKey(setting.envVar()))
        || file.containsKey(setting.name());
  }

  /** Where the model of {@code setting} is, or {@code null} when it is not set. */
  ModelLocation modelLocation(Setting<String> setting) {
    String raw = value(setting);
    if (raw == null) {
      return null;
    }
    try {
      return ModelLocation.resolve(raw, env);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "Invalid value '" + raw + "' for " + setting.flag() + ": " + e.getMessage());
    }
  }

  private <T> List<T> parseAll(Setting<T> setting, List<String> raws, String source) {
    List<T> parsed = new ArrayList<>(raws.size());
    for (String raw : raws) {
      try {
        parsed.add(setting.parse(raw));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "Invalid value "
                + (setting.secret() ? "(not shown)" : "'" + raw + "'")
                + " for "
                + setting.flag()
                + " ("
                + source
                + "): "
                + e.getMessage()
                + "; expected "
                + setting.expected());
      }
    }
    return parsed;
  }

  private List<String> fileValues(Setting<?> setting) {
    Object raw = file.get(setting.name());
    if (raw instanceof List<?> list) {
      if (!setting.repeatable()) {
        throw new ConfigException(
            setting.name() + " in " + fileName + " takes one value, not a list");
      }
      return list.stream().map(SettingValues::yamlScalar).collect(Collectors.toList());
    }
    return List.of(yamlScalar(raw));
  }

  /** A YAML value as the raw string a flag would carry; a map becomes {@code k=v,k=v}. */
  private static String yamlScalar(Object value) {
    if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream()
          .map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(","));
    }
    return String.valueOf(value);
  }

  private static Map<String, Object> readYaml(Path path, List<Setting<?>> table) {
    Map<String, Object> values;
    try {
      ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
      JsonNode document = yaml.readTree(path.toFile());
      if (document == null || document.isMissingNode() || document.isNull()) {
        values = new LinkedHashMap<>(); // a file of comments only, like config/router.yaml
      } else if (document.isObject()) {
        @SuppressWarnings("unchecked")
        Map<String, Object> read = yaml.convertValue(document, Map.class);
        values = new LinkedHashMap<>(read);
      } else {
        throw new ConfigException(
            "Config file " + path + " must be a map of settings, not a " + document.getNodeType());
      }
    } catch (IOException e) {
      throw new ConfigException("Cannot read config file " + path + ": " + e.getMessage());
    }
    Set<String> known =
        table.stream().map(Setting::name).collect(Collectors.toCollection(HashSet::new));
    for (String key : values.keySet()) {
      if (!known.contains(key)) {
        throw new ConfigException(
            "Unknown key '"
                + key
                + "' in "
                + path
                + "; known keys: "
                + table.stream().map(Setting::name).collect(Collectors.joining(", ")));
      }
    }
    values.values().removeIf(v -> v == null);
    return values;
  }
}
