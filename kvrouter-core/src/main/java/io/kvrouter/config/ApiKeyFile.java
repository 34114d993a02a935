package io.kvrouter.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The format of {@code --api-keys-file}: one key per line, optionally after its name, and after a
 * name the key's own rate limits ({@link RateLimitOverrides}: {@code rpm=}, {@code tpm=}, {@code
 * concurrency=}, each a positive integer or {@code none}); blank lines and lines starting with
 * {@code #} are skipped.
 *
 * <pre>
 *   # team-a's key, then a key without a name (it is called key-&lt;digest&gt;)
 *   team-a sk-team-a-0123456789
 *   sk-anonymous-abcdef
 *   # team-b's own limits; the flags' defaults for the rest
 *   team-b sk-team-b-0123456789 rpm=60 tpm=100000 concurrency=4
 * </pre>
 *
 * A line that is not {@code [NAME] KEY [LIMIT=N]...}, a name or key given twice, or a bad name, key
 * or limit is an error naming its line (never the key).
 */
public final class ApiKeyFile {
  private ApiKeyFile() {}

  /** The keys in {@code file}. */
  public static List<ApiKey> read(Path file) throws IOException {
    return parse(Files.readAllLines(file), file.toString());
  }

  /**
   * The keys in {@code lines}.
   *
   * @param source what to call the lines in an error
   * @throws IllegalArgumentException naming the line at fault
   */
  public static List<ApiKey> parse(List<String> lines, String source) {
    List<ApiKey> keys = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] tokens = line.split("\\s+");
      String where = source + " line " + (i + 1);
      ApiKey key;
      try {
        key =
            switch (tokens.length) {
              case 1 -> ApiKey.unnamed(tokens[0]);
              case 2 -> {
                if (tokens[1].matches("(rpm|tpm|concurrency)=.*")) {
                  throw new IllegalArgumentException(
                      "a key's limits come after its name and the key: NAME KEY "
                          + tokens[1].substring(0, tokens[1].indexOf('=') + 1)
                          + "N");
                }
                yield new ApiKey(tokens[0], tokens[1]);
              }
              default ->
                  new ApiKey(
                      tokens[0],
                      tokens[1],
                      RateLimitOverrides.parse(Arrays.asList(tokens).subList(2, tokens.length)));
            };
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
      if (!names.add(key.name())) {
        throw new IllegalArgumentException(where + ": the name " + key.name() + " is taken");
      }
      if (!seen.add(key.key())) {
        throw new IllegalArgumentException(where + ": the same key is on an earlier line");
      }
      keys.add(key);
    }
    return List.copyOf(keys);
  }
}
