package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The context lengths vLLM derives for these configs (as its default --max-model-len). */
class ModelContextLengthTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static OptionalInt derive(String config, String tokenizerConfig) throws Exception {
    JsonNode model = config == null ? null : JSON.readTree(config);
    JsonNode tokenizer = tokenizerConfig == null ? null : JSON.readTree(tokenizerConfig);
    return ModelContextLength.derive(model, tokenizer);
  }

  @Test
  void theSmallestPositionLimitOfTheConfig() throws Exception {
    assertThat(derive("{\"max_position_embeddings\":40960}", null)).hasValue(40960);
    assertThat(derive("{\"n_positions\":1024,\"n_ctx\":2048}", null)).hasValue(1024);
    assertThat(derive("{\"max_position_embeddings\":8192,\"seq_length\":4096}", null))
        .hasValue(4096);
  }

  @Test
  void theConfigsOwnModelMaxLength_wins() throws Exception {
    // Command-R states a small max_position_embeddings and its real limit as model_max_length
    assertThat(derive("{\"max_position_embeddings\":8192,\"model_max_length\":131072}", null))
        .hasValue(131072);
  }

  @Test
  void aMultimodalModel_takesItsTextConfig() throws Exception {
    assertThat(
            derive(
                "{\"model_type\":\"llava\",\"text_config\":{\"max_position_embeddings\":32768},"
                    + "\"vision_config\":{\"max_position_embeddings\":577}}",
                null))
        .hasValue(32768);
  }

  @Test
  void theTokenizersModelMaxLength_capsIt_unlessItIsTheNoLimitStandIn() throws Exception {
    assertThat(derive("{\"max_position_embeddings\":131072}", "{\"model_max_length\":32768}"))
        .hasValue(32768);
    assertThat(
            derive(
                "{\"max_position_embeddings\":131072}",
                "{\"model_max_length\":1000000000000000019884624838656}"))
        .hasValue(131072);
    assertThat(derive(null, "{\"model_max_length\":131072}")).hasValue(131072);
  }

  @Test
  void nothingStated_isUnknownForATokenizerOnlyFolder_and2048WithAConfig() throws Exception {
    assertThat(derive(null, null)).isEmpty();
    assertThat(derive(null, "{\"model_max_length\":1000000000000000019884624838656}")).isEmpty();
    assertThat(derive("{\"hidden_size\":4096}", null))
        .hasValue(ModelContextLength.UNSTATED_CONFIG_DEFAULT);
  }

  @Test
  void ropeScaling_multipliesTheLimit_unlessItIsAlreadyScaled() throws Exception {
    assertThat(
            derive(
                "{\"max_position_embeddings\":4096,"
                    + "\"rope_scaling\":{\"rope_type\":\"linear\",\"factor\":2.0}}",
                null))
        .hasValue(8192);
    // older configs call it "type"; "dynamic" scales too
    assertThat(
            derive(
                "{\"max_position_embeddings\":4096,"
                    + "\"rope_scaling\":{\"type\":\"dynamic\",\"factor\":4.0}}",
                null))
        .hasValue(16384);
    // yarn scales the original length
    assertThat(
            derive(
                "{\"max_position_embeddings\":32768,\"rope_scaling\":{\"rope_type\":\"yarn\","
                    + "\"factor\":4.0,\"original_max_position_embeddings\":32768}}",
                null))
        .hasValue(131072);
    // Llama 3.1's limit already is the scaled one, as is every Gemma 3's
    assertThat(
            derive(
                "{\"max_position_embeddings\":131072,\"rope_scaling\":{\"rope_type\":\"llama3\","
                    + "\"factor\":8.0,\"original_max_position_embeddings\":8192}}",
                null))
        .hasValue(131072);
    assertThat(
            derive(
                "{\"model_type\":\"gemma3_text\",\"max_position_embeddings\":131072,"
                    + "\"rope_scaling\":{\"rope_type\":\"linear\",\"factor\":8.0}}",
                null))
        .hasValue(131072);
    // transformers 5 names it rope_parameters
    assertThat(
            derive(
                "{\"max_position_embeddings\":4096,"
                    + "\"rope_parameters\":{\"rope_type\":\"linear\",\"factor\":2.0}}",
                null))
        .hasValue(8192);
  }
}
