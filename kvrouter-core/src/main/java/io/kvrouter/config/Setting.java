package io.kvrouter.config;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration setting: its flag and YAML key ({@code name}), its environment variable, its
 * default, and how a raw string becomes a typed value.
 *
 * @param name the flag without its leading dashes, also the key in the YAML file
 * @param envVar the environment variable ({@code DYN_*} where Dynamo has one), or {@code null}
 * @param paramLabel the value's name in help; {@code null} for a switch ({@code --x} / {@code
 *     --no-x}, a {@code Boolean} setting)
 * @param defaultValue the raw default, or {@code null} when the setting is optional
 * @param expected what a valid value looks like, for help and error messages
 * @param repeatable whether the setting may be given several times (a list)
 * @param aliases other flag names accepted for it (Dynamo's older or newer spellings), without
 *     dashes
 */
public record Setting<T>(
    String name,
    String envVar,
    String paramLabel,
    String description,
    String defaultValue,
    String expected,
    boolean repeatable,
    Function<String, T> parser,
    List<String> aliases,
    boolean secret) {

  public Setting {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(parser, "parser");
    aliases = List.copyOf(aliases);
  }

  /** A setting without aliases, and no secret. */
  public Setting(
      String name,
      String envVar,
      String paramLabel,
      String description,
      String defaultValue,
      String expected,
      boolean repeatable,
      Function<String, T> parser) {
    this(
        name,
        envVar,
        paramLabel,
        description,
        defaultValue,
        expected,
        repeatable,
        parser,
        List.of(),
        false);
  }

  /** This setting, also accepted under the flag names {@code aliases}. */
  public Setting<T> withAliases(String... aliases) {
    return renamed(name, description, List.of(aliases));
  }

  /**
   * This setting with another help text: the same knob, flag, variable, default and values, seen
   * from another command (the router follows KV events, a worker publishes them).
   */
  public Setting<T> describedAs(String description) {
    return renamed(name, description, aliases);
  }

  /**
   * This setting under {@code prefix} + its name (its aliases prefixed alike), with the help text
   * {@code description}: one knob offered by two commands under related names.
   */
  public Setting<T> prefixed(String prefix, String description) {
    return renamed(
        prefix + name, description, aliases.stream().map(alias -> prefix + alias).toList());
  }

  /** This setting, whose values (keys, passwords) no error message repeats. */
  public Setting<T> asSecret() {
    return copy(name, description, aliases, true);
  }

  private Setting<T> renamed(String name, String description, List<String> aliases) {
    return copy(name, description, aliases, secret);
  }

  private Setting<T> copy(String name, String description, List<String> aliases, boolean secret) {
    return new Setting<>(
        name,
        envVar,
        paramLabel,
        description,
        defaultValue,
        expected,
        repeatable,
        parser,
        aliases,
        secret);
  }

  /** Whether this is an on/off switch, given as {@code --name} or {@code --no-name}. */
  public boolean isSwitch() {
    return paramLabel == null;
  }

  /** The flag as typed on the command line. */
  public String flag() {
    return "--" + name;
  }

  /** Converts {@code raw}; throws {@link IllegalArgumentException} when it is not valid. */
  public T parse(String raw) {
    return parser.apply(raw.trim());
  }
}
