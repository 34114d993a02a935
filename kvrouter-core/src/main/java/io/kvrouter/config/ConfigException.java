package io.kvrouter.config;

/** The configuration is invalid; the message names the setting, the value and what is expected. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message, null, false, false);
  }
}
