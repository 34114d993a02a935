package io.kvrouter.config;

/** An enum constant with the lower-case, dashed name it has in flags, variables and YAML. */
public interface Named {
  String configName();
}
