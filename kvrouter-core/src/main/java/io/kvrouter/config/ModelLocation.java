package io.kvrouter.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where {@code --model-path} points: a model folder, or a Hugging Face model id ({@code
 * Qwen/Qwen3-0.6B}) already downloaded into the local hub cache, as {@code huggingface_hub} lays it
 * out:
 *
 * <pre>
 * {cache}/models--Qwen--Qwen3-0.6B/refs/main            the commit of the main branch
 * {cache}/models--Qwen--Qwen3-0.6B/snapshots/{commit}/  the model's files at that commit
 * </pre>
 *
 * The cache is {@code HF_HUB_CACHE}, else {@code HF_HOME/hub}, else {@code
 * XDG_CACHE_HOME/huggingface/hub}, else {@code ~/.cache/huggingface/hub}, as in {@code
 * huggingface_hub}. A cache without {@code refs/main} but with one snapshot uses that one. Nothing
 * is downloaded.
 *
 * @param folder the model folder
 * @param defaultServedName what clients call the model unless {@code --served-model-name} says
 *     otherwise: the folder's name, or the model id; {@code null} for a folder without a name (the
 *     root)
 */
public record ModelLocation(Path folder, String defaultServedName) {
  private static final Pattern MODEL_ID =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?");

  public ModelLocation {
    Objects.requireNonNull(folder, "folder");
  }

  /**
   * Resolves {@code raw} with the variables {@code env}; throws {@link IllegalArgumentException}
   * saying where it looked when it finds no folder.
   */
  public static ModelLocation resolve(String raw, Map<String, String> env) {
    Path path = Path.of(raw);
    if (Files.isDirectory(path)) {
      Path name = path.toAbsolutePath().normalize().getFileName();
      return new ModelLocation(path, name == null ? null : name.toString());
    }
    if (Files.exists(path)) {
      throw new IllegalArgumentException(raw + " is a file, not a model folder");
    }
    if (!MODEL_ID.matcher(raw).matches()) {
      throw new IllegalArgumentException(
          "no folder " + raw + ", and it is not a Hugging Face model id (ORG/NAME)");
    }
    Path cache = hubCache(env);
    Path repo = cache.resolve("models--" + raw.replace("/", "--"));
    if (!Files.isDirectory(repo)) {
      throw new IllegalArgumentException(
          "no folder "
              + raw
              + ", and the Hugging Face cache "
              + cache
              + " has no "
              + repo.getFileName()
              + ": download the model first (huggingface-cli download "
              + raw
              + "), or give its folder");
    }
    return new ModelLocation(snapshot(repo), raw);
  }

  /** The hub cache {@code huggingface_hub} uses with these variables. */
  static Path hubCache(Map<String, String> env) {
    String hubCache = env.get("HF_HUB_CACHE");
    if (hubCache != null && !hubCache.isBlank()) {
      return Path.of(hubCache);
    }
    String home = env.get("HF_HOME");
    if (home != null && !home.isBlank()) {
      return Path.of(home, "hub");
    }
    String xdg = env.get("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isBlank()) {
      return Path.of(xdg, "huggingface", "hub");
    }
    return Path.of(System.getProperty("user.home"), ".cache", "huggingface", "hub");
  }

  private static Path snapshot(Path repo) {
    Path snapshots = repo.resolve("snapshots");
    Path ref = repo.resolve("refs").resolve("main");
    try {
      if (Files.isRegularFile(ref)) {
        String commit = Files.readString(ref, StandardCharsets.UTF_8).trim();
        Path folder = snapshots.resolve(commit);
        if (!commit.isEmpty() && Files.isDirectory(folder)) {
          return folder;
        }
        throw new IllegalArgumentException(
            ref + " names commit " + commit + ", but " + snapshots + " has no such folder");
      }
      List<Path> all;
      try (Stream<Path> list =
          Files.isDirectory(snapshots) ? Files.list(snapshots) : Stream.empty()) {
        all = list.filter(Files::isDirectory).sorted().toList();
      }
      if (all.size() == 1) {
        return all.get(0);
      }
      throw new IllegalArgumentException(
          repo
              + " has no refs/main and "
              + all.size()
              + " snapshots"
              + (all.isEmpty()
                  ? ""
                  : " ("
                      + all.stream().map(p -> p.getFileName().toString()).toList()
                      + "): give the snapshot folder itself"));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + repo + ": " + e.getMessage(), e);
    }
  }
}
