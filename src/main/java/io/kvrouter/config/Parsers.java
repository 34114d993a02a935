package io.kvrouter.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Conversions from raw setting strings; each throws {@link IllegalArgumentException}. */
final class Parsers {
  private Parsers() {}

  static int intInRange(String raw, int min, int max) {
    int value;
    try {
      value = Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not an integer");
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException("out of range");
    }
    return value;
  }

  static Function<String, Integer> ints(int min, int max) {
    return raw -> intInRange(raw, min, max);
  }

  /** A finite number from {@code min} to {@code max}, both included. */
  static Function<String, Double> doubles(double min, double max) {
    return raw -> {
      double value;
      try {
        value = Double.parseDouble(raw);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a number");
      }
      if (!(value >= min && value <= max)) {
        throw new IllegalArgumentException("out of range");
      }
      return value;
    };
  }

  static Function<String, Long> longs(long min, long max) {
    return raw -> {
      long value;
      try {
        value = Long.parseLong(raw);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not an integer");
      }
      if (value < min || value > max) {
        throw new IllegalArgumentException("out of range");
      }
      return value;
    };
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

  static Path directory(String raw) {
    Path path = Path.of(nonEmpty(raw));
    if (!Files.isDirectory(path)) {
      throw new IllegalArgumentException("not a directory");
    }
    return path;
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
