package io.kvrouter.tools.trace;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a trace in the Mooncake format: one JSON object per line with {@code timestamp} (ms from
 * the start), {@code input_length} and {@code output_length} (tokens) and {@code hash_ids} (one id
 * per {@value #TRACE_BLOCK_TOKENS}-token prefix block, {@code ceil(input_length / 512)} of them).
 * Other fields are ignored; blank lines are skipped. Requests are returned in arrival order (a
 * stable sort, so equal timestamps keep the file's order).
 */
public final class MooncakeTrace {
  /** Tokens per trace block: each hash id stands for this many prompt tokens. */
  public static final int TRACE_BLOCK_TOKENS = 512;

  private static final JsonFactory JSON = new JsonFactory();

  private MooncakeTrace() {}

  /**
   * @throws TraceFormatException naming the file and line of the first bad record, or when the file
   *     cannot be read
   */
  public static List<TraceRequest> read(Path file) {
    List<TraceRequest> requests = new ArrayList<>();
    try (BufferedReader lines = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      int lineNumber = 0;
      while ((line = lines.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        try {
          requests.add(parse(line, requests.size()));
        } catch (IllegalArgumentException | IOException e) {
          throw new TraceFormatException(file + " line " + lineNumber + ": " + e.getMessage());
        }
      }
    } catch (NoSuchFileException e) {
      throw new TraceFormatException("trace file not found: " + file);
    } catch (IOException e) {
      throw new TraceFormatException("cannot read trace " + file + ": " + e.getMessage());
    }
    if (requests.isEmpty()) {
      throw new TraceFormatException(file + " holds no requests");
    }
    requests.sort((a, b) -> Double.compare(a.arrivalMillis(), b.arrivalMillis()));
    List<TraceRequest> ordered = new ArrayList<>(requests.size());
    for (TraceRequest r : requests) {
      ordered.add(
          new TraceRequest(
              ordered.size(), r.arrivalMillis(), r.inputTokens(), r.outputTokens(), r.hashIds()));
    }
    return List.copyOf(ordered);
  }

  /** {@code requests} arriving {@code factor} times as often (timestamps divided by it). */
  public static List<TraceRequest> scaleRate(List<TraceRequest> requests, double factor) {
    if (!(factor > 0) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException("request rate scale must be > 0: " + factor);
    }
    return requests.stream().map(r -> r.withRateScale(factor)).toList();
  }

  /**
   * The requests arriving before {@code seconds}.
   *
   * @throws IllegalArgumentException if {@code seconds} is not above 0 or no request is left
   */
  public static List<TraceRequest> firstSeconds(List<TraceRequest> requests, double seconds) {
    if (!(seconds > 0)) {
      throw new IllegalArgumentException("--duration must be > 0 seconds: " + seconds);
    }
    List<TraceRequest> kept =
        requests.stream().filter(r -> r.arrivalMillis() < seconds * 1000).toList();
    if (kept.isEmpty()) {
      throw new IllegalArgumentException(
          "no request arrives within --duration " + seconds + " s at this request rate");
    }
    return kept;
  }

  static TraceRequest parse(String line, int index) throws IOException {
    Double timestamp = null;
    Integer input = null;
    Integer output = null;
    long[] ids = null;
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("expected a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "timestamp" -> timestamp = number(p, value, field);
          case "input_length" -> input = integer(p, value, field);
          case "output_length" -> output = integer(p, value, field);
          case "hash_ids" -> ids = ids(p, value);
          default -> p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("text after the JSON object");
      }
    } catch (JsonParseException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
    }
    if (timestamp == null || input == null || output == null || ids == null) {
      throw new IllegalArgumentException(
          "a record needs timestamp, input_length, output_length and hash_ids");
    }
    int expected = (input + TRACE_BLOCK_TOKENS - 1) / TRACE_BLOCK_TOKENS;
    if (ids.length < expected) {
      throw new IllegalArgumentException(
          "input_length "
              + input
              + " needs "
              + expected
              + " hash_ids of "
              + TRACE_BLOCK_TOKENS
              + " tokens, got "
              + ids.length);
    }
    return new TraceRequest(index, timestamp, input, output, ids);
  }

  private static double number(JsonParser p, JsonToken value, String field) throws IOException {
    if (value != JsonToken.VALUE_NUMBER_INT && value != JsonToken.VALUE_NUMBER_FLOAT) {
      throw new IllegalArgumentException(field + " must be a number");
    }
    return p.getDoubleValue();
  }

  private static int integer(JsonParser p, JsonToken value, String field) throws IOException {
    if (value != JsonToken.VALUE_NUMBER_INT) {
      throw new IllegalArgumentException(field + " must be an integer");
    }
    long v = p.getLongValue();
    if (v < 1 || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(field + " must be between 1 and " + Integer.MAX_VALUE);
    }
    return (int) v;
  }

  private static long[] ids(JsonParser p, JsonToken value) throws IOException {
    if (value != JsonToken.START_ARRAY) {
      throw new IllegalArgumentException("hash_ids must be an array of integers");
    }
    long[] ids = new long[16];
    int n = 0;
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.VALUE_NUMBER_INT) {
        throw new IllegalArgumentException("hash_ids must be an array of integers");
      }
      if (n == ids.length) {
        ids = java.util.Arrays.copyOf(ids, n * 2);
      }
      ids[n++] = p.getLongValue();
    }
    return java.util.Arrays.copyOf(ids, n);
  }
}
