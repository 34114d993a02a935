package io.kvrouter.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Conversions from raw setting strings; each throws {@link IllegalArgumentException}. */
final class Parsers {
  private Parsers() {}

  static int intInRange(String raw, int min, int max) {
    return ints(min, max).apply(raw);
  }

  static Function<String, Integer> ints(int min, int max) {
    return inRange(Integer::valueOf, "an integer", min, max);
  }

  static Function<String, Long> longs(long min, long max) {
    return inRange(Long::valueOf, "an integer", min, max);
  }

  /** A number from {@code min} to {@code max}, both included; NaN and infinities are out. */
  static Function<String, Double> doubles(double min, double max) {
    return inRange(Double::valueOf, "a number", min, max);
  }

  private static <N extends Comparable<N>> Function<String, N> inRange(
      Function<String, N> parse, String kind, N min, N max) {
    return raw -> {
      N value;
      try {
        value = parse.apply(raw.trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not " + kind);
      }
      // Double.compareTo orders NaN above every number, so NaN is out of range too
      if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
        throw new IllegalArgumentException("out of range");
      }
      return value;
    };
  }

  /** {@code true/false}, as Dynamo reads its switches: also 1/0, yes/no, on/off. */
  static Boolean bool(String raw) {
    switch (raw.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "1", "yes", "on":
        return true;
      case "false", "0", "no", "off":
        return false;
      default:
        throw new IllegalArgumentException("not true or false");
    }
  }

  /** One of the integers {@code allowed}. */
  static Function<String, Integer> intsOf(int... allowed) {
    return raw -> {
      int value = intInRange(raw, Integer.MIN_VALUE, Integer.MAX_VALUE);
      for (int a : allowed) {
        if (a == value) {
          return value;
        }
      }
      throw new IllegalArgumentException("not one of the allowed values");
    };
  }

  /** Seconds, possibly fractional ({@code 5}, {@code 0.5}), as Dynamo's timeouts are given. */
  static Duration seconds(String raw) {
    double seconds;
    try {
      seconds = Double.parseDouble(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number");
    }
    if (!(seconds >= 0.001) || seconds > 86_400) {
      throw new IllegalArgumentException("out of range");
    }
    return Duration.ofNanos((long) (seconds * 1e9));
  }

  static Duration millis(String raw) {
    return Duration.ofMillis(intInRange(raw, 0, 600_000));
  }

  static String nonEmpty(String raw) {
    if (raw.isEmpty()) {
      throw new IllegalArgumentException("empty");
    }
    return raw;
  }

  /** A file's path (whether it can be read is checked where it is used). */
  static java.nio.file.Path path(String raw) {
    try {
      return java.nio.file.Path.of(nonEmpty(raw));
    } catch (java.nio.file.InvalidPathException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
  }

  /** An API key as {@link ApiKey} takes it (the message never repeats the key). */
  static String apiKey(String raw) {
    return ApiKey.unnamed(raw).key();
  }

  /** {@code HOST:PORT[,HOST:PORT...]}, as Kafka's bootstrap.servers. */
  static String hostPorts(String raw) {
    for (String one : nonEmpty(raw).split(",", -1)) {
      int colon = one.trim().lastIndexOf(':');
      String port = colon < 1 ? "" : one.trim().substring(colon + 1);
      if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
        throw new IllegalArgumentException("'" + one.trim() + "' is not HOST:PORT");
      }
    }
    return raw.trim();
  }

  /** A prefix of Kafka topic names: letters, digits, {@code .}, {@code _} and {@code -}. */
  static String topicPrefix(String raw) {
    if (!KafkaConfig.isTopicText(raw) || raw.length() > 100) {
      throw new IllegalArgumentException(
          "'" + raw + "' holds a character Kafka does not allow in topic names");
    }
    return raw;
  }

  /** One NATS subject token: not empty, no {@code .}, {@code *}, {@code >} or whitespace. */
  static String subjectToken(String raw) {
    if (raw.isEmpty()
        || raw.chars()
            .anyMatch(c -> c == '.' || c == '*' || c == '>' || Character.isWhitespace(c))) {
      throw new IllegalArgumentException("not a subject token");
    }
    return raw;
  }

  /** A canonical decimal u64, as Dynamo's worker ids are written. */
  static boolean isDynamoWorkerId(String id) {
    try {
      return Long.toUnsignedString(Long.parseUnsignedLong(id)).equals(id);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** A Dynamo worker id: a decimal u64 without leading zeros. */
  static String dynamoWorkerId(String raw) {
    if (!isDynamoWorkerId(raw)) {
      throw new IllegalArgumentException("not a decimal u64 without leading zeros");
    }
    return raw;
  }

  static <E extends Enum<E> & Named> Function<String, E> named(Class<E> type) {
    return raw -> {
      for (E constant : type.getEnumConstants()) {
        if (constant.configName().equals(raw)) {
          return constant;
        }
      }
      throw new IllegalArgumentException("unknown value");
    };
  }

  static <E extends Enum<E> & Named> String oneOf(Class<E> type) {
    return "one of: "
        + Arrays.stream(type.getEnumConstants())
            .map(Named::configName)
            .collect(Collectors.joining(", "));
  }
}
