package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.ModelLocation;
import io.kvrouter.preprocess.template.ChatTemplateException;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelAssetsTest {

  private static final List<ChatMessage> CHAT =
      List.of(ChatMessage.system("Be brief."), ChatMessage.user("Hi"));

  /** Qwen3's real files, laid out in a hub cache as huggingface_hub downloads them. */
  @Test
  void loadsQwen3FromAHuggingFaceHubCache(@TempDir Path cache) throws IOException {
    Path repo = cache.resolve("models--Qwen--Qwen3-0.6B");
    Path snapshot = Files.createDirectories(repo.resolve("snapshots/c0ffee"));
    for (String file : List.of(ModelAssets.TOKENIZER_FILE, ModelAssets.TOKENIZER_CONFIG_FILE)) {
      Files.copy(TestModels.dir("qwen3").resolve(file), snapshot.resolve(file));
    }
    Files.createDirectories(repo.resolve("refs"));
    Files.writeString(repo.resolve("refs/main"), "c0ffee");

    Path folder =
        ModelLocation.resolve("Qwen/Qwen3-0.6B", Map.of("HF_HUB_CACHE", cache.toString())).folder();
    try (ModelAssets assets = ModelAssets.load(folder)) {
      assertThat(assets.eosTokenIds()).containsExactly(151645);
      assertThat(assets.tokenizer().encode(assets.chatTemplate().render(CHAT, true)))
          .startsWith(151644)
          .endsWith(198);
    }
  }

  @Test
  void loadsQwen3() throws IOException {
    try (ModelAssets assets = ModelAssets.load(TestModels.dir("qwen3"))) {
      assertThat(assets.name()).isEqualTo("qwen3");
      assertThat(assets.eosTokenIds()).containsExactly(151645); // <|im_end|>
      assertThat(assets.chatTemplate().isAvailable()).isTrue();
      String prompt = assets.chatTemplate().render(CHAT, true);
      assertThat(prompt)
          .isEqualTo(
              "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
                  + "<|im_start|>assistant\n");
      assertThat(assets.tokenizer().encode(prompt)).startsWith(151644).endsWith(198);
    }
  }

  @Test
  void loadsLlama3() throws IOException {
    try (ModelAssets assets = ModelAssets.load(TestModels.dir("llama3"))) {
      assertThat(assets.name()).isEqualTo("llama3");
      assertThat(assets.eosTokenIds()).containsExactly(128001); // <|end_of_text|>
      assertThat(assets.chatTemplate().render(CHAT, true))
          .isEqualTo(
              "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
                  + "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                  + "<|start_header_id|>assistant<|end_header_id|>\n\n");
    }
  }

  @Test
  void generationConfigEosIdsComeFirstAndAreMergedWithTheTokenizerEos(@TempDir Path tmp)
      throws IOException {
    Path dir = copyOf("llama3", tmp.resolve("Llama-3-Instruct"));
    Files.writeString(
        dir.resolve("generation_config.json"), "{\"eos_token_id\": [128009, 128001]}");
    try (ModelAssets assets = ModelAssets.load(dir)) {
      assertThat(assets.name()).isEqualTo("Llama-3-Instruct");
      assertThat(assets.eosTokenIds()).containsExactly(128009, 128001);
    }
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": 128008}");
    try (ModelAssets assets = ModelAssets.load(dir)) {
      assertThat(assets.eosTokenIds()).containsExactly(128008, 128001);
    }
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": \"x\"}");
    assertThatThrownBy(() -> ModelAssets.load(dir))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("generation_config.json")
        .hasMessageContaining("eos_token_id");
    Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": 999999}");
    assertThatThrownBy(() -> ModelAssets.load(dir))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("999999");
  }

  @Test
  void tokenObjectsAndTemplateListsAreUnderstood(@TempDir Path tmp) throws IOException {
    Path dir = copyOf("qwen3", tmp.resolve("m"));
    Files.writeString(
        dir.resolve("tokenizer_config.json"),
        "{\"eos_token\": {\"content\": \"<|endoftext|>\", \"special\": true}, \"bos_token\":"
            + " {\"content\": \"<|im_start|>\"}, \"chat_template\": [{\"name\": \"tool_use\","
            + " \"template\": \"TOOLS\"}, {\"name\": \"default\", \"template\": \"{{ bos_token }}{{"
            + " messages[0].content }}{{ eos_token }}\"}]}");
    try (ModelAssets assets = ModelAssets.load(dir)) {
      assertThat(assets.eosTokenIds()).containsExactly(151643);
      assertThat(assets.chatTemplate().render(List.of(ChatMessage.user("x")), true))
          .isEqualTo("<|im_start|>x<|endoftext|>");
    }
  }

  /** transformers gives a separate chat_template.jinja priority over tokenizer_config.json's. */
  @Test
  void aChatTemplateFileWinsOverTheConfigsTemplate(@TempDir Path tmp) throws IOException {
    Path dir = copyOf("qwen3", tmp.resolve("qwen3"));
    Files.writeString(dir.resolve("chat_template.jinja"), "{{ messages[-1].content }}?");
    try (ModelAssets assets = ModelAssets.load(dir)) {
      assertThat(assets.chatTemplate().render(CHAT, true)).isEqualTo("Hi?");
    }
  }

  @Test
  void aModelWithoutTemplateLoadsButRefusesChat(@TempDir Path tmp) throws IOException {
    Path dir = copyOf("qwen3", tmp.resolve("base-model"));
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"eos_token\": \"<|endoftext|>\"}");
    try (ModelAssets assets = ModelAssets.load(dir)) {
      assertThat(assets.chatTemplate().isAvailable()).isFalse();
      assertThatThrownBy(() -> assets.chatTemplate().render(CHAT, true))
          .isInstanceOfSatisfying(
              ChatTemplateException.class,
              e -> assertThat(e.reason()).isEqualTo(ChatTemplateException.Reason.MISSING))
          .hasMessageContaining("no chat template")
          .hasMessageContaining(dir.toString());
    }
    // chat_template.jinja beside it is used
    Files.writeString(dir.resolve("chat_template.jinja"), "{{ messages[0].content }}!");
    try (ModelAssets assets = ModelAssets.load(dir)) {
      assertThat(assets.chatTemplate().render(CHAT, true)).isEqualTo("Be brief.!");
    }
    // no tokenizer_config.json at all
    Files.delete(dir.resolve("tokenizer_config.json"));
    Files.delete(dir.resolve("chat_template.jinja"));
    try (ModelAssets assets = ModelAssets.load(dir)) {
      assertThat(assets.eosTokenIds()).isEmpty();
      assertThat(assets.chatTemplate().isAvailable()).isFalse();
    }
  }

  @Test
  void missingOrBadFilesAreNamed(@TempDir Path tmp) throws IOException {
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    assertThatThrownBy(() -> ModelAssets.load(empty))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(empty.resolve("tokenizer.json").toString())
        .hasMessageContaining("required");
    assertThatThrownBy(() -> ModelAssets.load(tmp.resolve("nope")))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("nope");

    Path dir = copyOf("qwen3", tmp.resolve("bad"));
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"eos_token\": ");
    assertThatThrownBy(() -> ModelAssets.load(dir))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(dir.resolve("tokenizer_config.json").toString())
        .hasMessageContaining("not valid JSON");
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"eos_token\": \"<no-such-token>\"}");
    assertThatThrownBy(() -> ModelAssets.load(dir))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("tokenizer_config.json")
        .hasMessageContaining("<no-such-token>");
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"chat_template\": 5}");
    assertThatThrownBy(() -> ModelAssets.load(dir))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("chat_template");
  }

  @Test
  void demoAssets() {
    ModelAssets demo = ModelAssets.demo();
    assertThat(demo.tokenizer()).isSameAs(Tokenizer.bytes());
    assertThat(demo.eosTokenIds()).isEmpty();
    assertThat(demo.chatTemplate().render(List.of(ChatMessage.user("hi")), true))
        .isEqualTo("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
    assertThat(demo.withName("mock").name()).isEqualTo("mock");
  }

  /** A writable model folder whose tokenizer.json links to the cached one. */
  @Test
  void contextLength_comesFromTheModelsFiles(@TempDir Path tmp) throws IOException {
    // tokenizer-only folders: Qwen3's tokenizer_config.json says 131072, Llama 3's says "none"
    try (ModelAssets qwen = ModelAssets.load(TestModels.dir("qwen3"));
        ModelAssets llama = ModelAssets.load(TestModels.dir("llama3"))) {
      assertThat(qwen.contextLength()).hasValue(131072);
      assertThat(llama.contextLength()).isEmpty();
      assertThat(llama.withContextLength(8192).contextLength()).hasValue(8192);
    }
    Path dir = copyOf("qwen3", tmp.resolve("Qwen3-0.6B"));
    Files.writeString(
        dir.resolve(ModelAssets.MODEL_CONFIG_FILE),
        "{\"model_type\":\"qwen3\",\"max_position_embeddings\":40960}");
    try (ModelAssets assets = ModelAssets.load(dir)) {
      assertThat(assets.contextLength()).hasValue(40960);
    }
    assertThat(ModelAssets.demo().contextLength()).isEmpty();
  }

  private static Path copyOf(String model, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path src = TestModels.dir(model);
    Files.createSymbolicLink(dir.resolve("tokenizer.json"), src.resolve("tokenizer.json"));
    Files.copy(src.resolve("tokenizer_config.json"), dir.resolve("tokenizer_config.json"));
    return dir;
  }
}
