package io.kvrouter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --model-path} as a folder or as a model id in a hub cache laid out as huggingface_hub
 * does.
 */
class ModelLocationTest {
  @TempDir Path dir;

  private Path repo(Path cache, String id, String... snapshots) throws IOException {
    Path repo = Files.createDirectories(cache.resolve("models--" + id.replace("/", "--")));
    for (String commit : snapshots) {
      Files.createDirectories(repo.resolve("snapshots").resolve(commit));
    }
    return repo;
  }

  @Test
  void aFolderIsItself_namedByItsLastSegment() throws IOException {
    Path folder = Files.createDirectory(dir.resolve("Qwen3-0.6B"));
    assertThat(ModelLocation.resolve(folder.toString(), Map.of()))
        .isEqualTo(new ModelLocation(folder, "Qwen3-0.6B"));
  }

  @Test
  void aModelId_isTheSnapshotThatRefsMainNames_inHfHubCache() throws IOException {
    Path cache = dir.resolve("hub");
    Path repo = repo(cache, "Qwen/Qwen3-0.6B", "aaa111", "bbb222");
    Files.createDirectories(repo.resolve("refs"));
    Files.writeString(repo.resolve("refs/main"), "bbb222\n");

    ModelLocation location =
        ModelLocation.resolve("Qwen/Qwen3-0.6B", Map.of("HF_HUB_CACHE", cache.toString()));

    assertThat(location.folder()).isEqualTo(repo.resolve("snapshots/bbb222"));
    assertThat(location.defaultServedName()).isEqualTo("Qwen/Qwen3-0.6B");
  }

  @Test
  void theCacheFollowsHfHome_thenXdgCacheHome_asHuggingfaceHubDoes() throws IOException {
    Path home = dir.resolve("hf-home");
    repo(home.resolve("hub"), "org/m", "c1");
    Path xdg = dir.resolve("xdg");
    repo(xdg.resolve("huggingface/hub"), "org/m", "c2");

    assertThat(
            ModelLocation.resolve(
                    "org/m", Map.of("HF_HOME", home.toString(), "XDG_CACHE_HOME", xdg.toString()))
                .folder())
        .as("HF_HOME before XDG_CACHE_HOME; one snapshot without refs/main")
        .isEqualTo(home.resolve("hub/models--org--m/snapshots/c1"));
    assertThat(ModelLocation.resolve("org/m", Map.of("XDG_CACHE_HOME", xdg.toString())).folder())
        .isEqualTo(xdg.resolve("huggingface/hub/models--org--m/snapshots/c2"));
    assertThat(ModelLocation.hubCache(Map.of()))
        .isEqualTo(Path.of(System.getProperty("user.home"), ".cache", "huggingface", "hub"));
  }

  @Test
  void whatCannotBeFound_saysWhereItLooked() throws IOException {
    Path cache = dir.resolve("hub");
    Map<String, String> env = Map.of("HF_HUB_CACHE", cache.toString());
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    repo(cache, "org/two", "c1", "c2");
    Path broken = repo(cache, "org/broken");
    Files.createDirectories(broken.resolve("refs"));
    Files.writeString(broken.resolve("refs/main"), "gone");

    for (var bad :
        List.of(
            List.of(
                "org/missing",
                "has no models--org--missing",
                "huggingface-cli download org/missing"),
            List.of(file.toString(), "is a file, not a model folder"),
            List.of("not a/model/id", "not a Hugging Face model id"),
            List.of("org/two", "no refs/main and 2 snapshots ([c1, c2])"),
            List.of("org/broken", "names commit gone"))) {
      assertThatThrownBy(() -> ModelLocation.resolve(bad.get(0), env))
          .as(bad.get(0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(bad.get(1))
          .hasMessageContaining(bad.size() > 2 ? bad.get(2) : "");
    }
  }

  @Test
  void theRouterServesAModelIdFromTheCache_underItsId() throws IOException {
    Path cache = dir.resolve("hub");
    Path snapshot = repo(cache, "Qwen/Qwen3-0.6B", "c1").resolve("snapshots/c1");

    RouterConfig config =
        ConfigLoader.load(
            Map.of("mock-workers", List.of("1"), "model-path", List.of("Qwen/Qwen3-0.6B")),
            Map.of("HF_HUB_CACHE", cache.toString()),
            null);

    assertThat(config.model().path()).isEqualTo(snapshot);
    assertThat(config.model().servedName()).isEqualTo("Qwen/Qwen3-0.6B");
    assertThatThrownBy(
            () ->
                ConfigLoader.load(
                    Map.of("mock-workers", List.of("1"), "model-path", List.of("Qwen/Other")),
                    Map.of("HF_HUB_CACHE", cache.toString()),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Invalid value 'Qwen/Other' for --model-path")
        .hasMessageContaining("has no models--Qwen--Other");
  }
}
