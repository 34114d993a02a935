package io.kvrouter.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Dynamo's discovery values against the bytes serde_json makes of Dynamo's types ({@code
 * golden/dynamo-serde/discovery_*.json}, written by {@code scripts/golden/dynamo-serde}): read
 * field by field, written back byte for byte, and built from Java values to the same bytes.
 */
class DiscoveryCodecTest {
  private static final long LEASE = 7587888160958627365L;
  private static final String INSTANCE_KEY =
      "v1/instances/dynamo/backend/generate/694d98147d54be25";
  private static final String CARD_KEY = "v1/mdc/dynamo/backend/generate/694d98147d54be25";

  static byte[] golden(String name) throws IOException {
    try (InputStream in =
        DiscoveryCodecTest.class.getResourceAsStream("/golden/dynamo-serde/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void tcpInstance_readsAndWritesSerdesBytes() throws IOException {
    byte[] bytes = golden("discovery_instance_tcp.json");
    InstanceRecord instance = (InstanceRecord) DiscoveryCodec.decode(INSTANCE_KEY, bytes);
    assertThat(instance)
        .isEqualTo(
            new InstanceRecord(
                "dynamo",
                "backend",
                "generate",
                LEASE,
                new Transport(Transport.Kind.TCP, "10.0.0.5:43117/694d98147d54be25/generate"),
                Optional.empty()));
    assertThat(instance.transport().tcpHostPort()).contains("10.0.0.5:43117");
    assertThat(instance.key()).isEqualTo(INSTANCE_KEY);
    assertThat(DiscoveryCodec.encode(instance)).isEqualTo(bytes);
    assertThat(Transport.tcp("10.0.0.5", 43117, LEASE, "generate")).isEqualTo(instance.transport());
  }

  @Test
  void natsInstance_readsAndWritesSerdesBytes() throws IOException {
    byte[] bytes = golden("discovery_instance_nats.json");
    InstanceRecord instance = (InstanceRecord) DiscoveryCodec.decode(INSTANCE_KEY, bytes);
    assertThat(instance.transport())
        .isEqualTo(new Transport(Transport.Kind.NATS, "dynamo_backend.generate-694d98147d54be25"));
    assertThat(instance.transport().tcpHostPort()).isEmpty();
    assertThat(DiscoveryCodec.encode(instance)).isEqualTo(bytes);
  }

  @Test
  void httpInstance_readsAndWritesSerdesBytes() throws IOException {
    byte[] bytes = golden("discovery_instance_http.json");
    InstanceRecord instance = (InstanceRecord) DiscoveryCodec.decode(INSTANCE_KEY, bytes);
    assertThat(instance.transport())
        .isEqualTo(new Transport(Transport.Kind.HTTP, "http://10.0.0.5:8888/v1/rpc/generate"));
    assertThat(instance.transport().tcpHostPort()).isEmpty();
    assertThat(DiscoveryCodec.encode(instance)).isEqualTo(bytes);
  }

  @Test
  void modelCard_readsTheFieldsARouterNeeds() throws IOException {
    ModelCardRecord record =
        (ModelCardRecord) DiscoveryCodec.decode(CARD_KEY, golden("discovery_model_card.json"));
    assertThat(record.instanceId()).isEqualTo(LEASE);
    assertThat(record.modelSuffix()).isEmpty();
    ModelCard card = record.card();
    assertThat(card.displayName()).isEqualTo("Qwen/Qwen3-0.6B");
    assertThat(card.slug()).isEqualTo("qwen_qwen3_0_6b_8ee6210e");
    assertThat(card.kvCacheBlockSize()).isEqualTo(16);
    assertThat(card.contextLength()).hasValue(40960);
    assertThat(card.modelInput()).isEqualTo("Tokens");
    assertThat(card.hasModelType("Chat")).isTrue();
    assertThat(card.hasModelType("Completions")).isTrue();
    assertThat(card.hasModelType("Embedding")).isFalse();
    assertThat(card.runtimeConfig())
        .isEqualTo(
            new RuntimeConfig(
                OptionalInt.of(40960),
                OptionalLong.of(8192),
                OptionalLong.of(256),
                OptionalLong.of(8192),
                0,
                1,
                true));
    assertThat(card.files().get("tokenizer"))
        .isEqualTo(
            new CardFile(
                "hf_tokenizer_json",
                "hf://Qwen/Qwen3-0.6B/tokenizer.json",
                "blake3:" + "2".repeat(64),
                OptionalLong.of(11422654),
                false));
    assertThat(card.files())
        .containsOnlyKeys("model_info", "tokenizer", "prompt_formatter", "gen_config");
  }

  @Test
  void modelCard_builtFromJavaValues_isSerdesBytes_withARealBlake3Slug() throws IOException {
    ModelCard card =
        ModelCard.forWorker(
            "Qwen/Qwen3-0.6B",
            Optional.empty(),
            40960,
            16,
            new RuntimeConfig(
                OptionalInt.of(40960),
                OptionalLong.of(8192),
                OptionalLong.of(256),
                OptionalLong.of(8192),
                0,
                1,
                true),
            Map.of(
                "model_info", placeholder("hf_config_json", '1', "config.json", 726),
                "tokenizer", placeholder("hf_tokenizer_json", '2', "tokenizer.json", 11422654),
                "prompt_formatter",
                    placeholder("hf_tokenizer_config_json", '3', "tokenizer_config.json", 9732),
                "gen_config",
                    placeholder("hf_generation_config_json", '4', "generation_config.json", 239)));
    ModelCardRecord record =
        new ModelCardRecord("dynamo", "backend", "generate", LEASE, card, Optional.empty());
    assertThat(record.key()).isEqualTo(CARD_KEY);
    assertThat(new String(DiscoveryCodec.encode(record), StandardCharsets.UTF_8))
        .isEqualTo(new String(golden("discovery_model_card.json"), StandardCharsets.UTF_8));
  }

  private static CardFile placeholder(String kind, char digit, String file, long size) {
    return new CardFile(
        kind,
        "hf://Qwen/Qwen3-0.6B/" + file,
        "blake3:" + String.valueOf(digit).repeat(64),
        OptionalLong.of(size),
        false);
  }

  @Test
  void slug_isDynamosSlugifyUnique() {
    assertThat(ModelSlug.of("Qwen/Qwen3-0.6B")).isEqualTo("qwen_qwen3_0_6b_8ee6210e");
    assertThat(ModelSlug.of("deepseek-ai/DeepSeek-R1-Distill-Llama-8B"))
        .isEqualTo("deepseek_ai_deepseek_r1_distill_llama_8b_6f0ce151");
  }

  @Test
  void scopedEventChannel_readsAndWritesSerdesBytes() throws IOException {
    byte[] bytes = golden("discovery_event_channel_scoped.json");
    String key =
        "v1/event_channels/namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/1b2c3d4e5f6071";
    EventChannelRecord channel = (EventChannelRecord) DiscoveryCodec.decode(key, bytes);
    assertThat(channel)
        .isEqualTo(
            new EventChannelRecord(
                EventChannelRecord.Layout.SCOPED,
                EventScope.endpoint("dynamo", "backend", "generate"),
                "kv-events",
                7648466190688369L,
                new EventTransport.Zmq("tcp://10.0.0.5:41234")));
    assertThat(channel.key()).isEqualTo(key);
    assertThat(DiscoveryCodec.encode(channel)).isEqualTo(bytes);
  }

  @Test
  void componentEventChannel_readsAndWritesSerdesBytes() throws IOException {
    byte[] bytes = golden("discovery_event_channel_component.json");
    String key = "v1/event_channels/dynamo/backend/kv-events/694d98147d54be25";
    EventChannelRecord channel = (EventChannelRecord) DiscoveryCodec.decode(key, bytes);
    assertThat(channel.layout()).isEqualTo(EventChannelRecord.Layout.COMPONENT);
    assertThat(channel.scope()).isEqualTo(EventScope.component("dynamo", "backend"));
    assertThat(channel.publisherId()).isEqualTo(LEASE);
    assertThat(channel.transport())
        .isEqualTo(new EventTransport.Nats("namespace.dynamo.component.backend"));
    assertThat(channel.key()).isEqualTo(key);
    assertThat(DiscoveryCodec.encode(channel)).isEqualTo(bytes);
  }

  @Test
  void namespaceScopedChannel_ofTheComponentLayout_hasAnEmptyComponentInItsKey() {
    String key = "v1/event_channels/dynamo//kv_metrics/2a";
    String value =
        "{\"type\":\"EventChannel\",\"namespace\":\"dynamo\",\"component\":\"\",\"topic\":\"kv_metrics\","
            + "\"instance_id\":42,\"transport\":{\"kind\":\"Nats\",\"config\":{\"subject_prefix\":\"namespace.dynamo\"}}}";
    EventChannelRecord channel = (EventChannelRecord) DiscoveryCodec.decode(key, utf8(value));
    assertThat(channel.scope()).isEqualTo(EventScope.namespace("dynamo"));
    assertThat(new String(DiscoveryCodec.encode(channel), StandardCharsets.UTF_8)).isEqualTo(value);
  }

  @Test
  void scopedKeys_percentEncodeTheirSegments() {
    EventChannelRecord channel =
        new EventChannelRecord(
            EventChannelRecord.Layout.SCOPED,
            EventScope.component("team.a", "back end"),
            "kv-events",
            42,
            new EventTransport.ZmqBroker(List.of("tcp://h:5555"), List.of("tcp://h:5556")));
    assertThat(channel.key())
        .isEqualTo("v1/event_channels/namespace/team%2Ea/component/back%20end/topic/kv-events/2a");
    assertThat(DiscoveryCodec.decode(channel.key(), DiscoveryCodec.encode(channel)))
        .isEqualTo(channel);
  }

  @Test
  void u64Ids_aboveLongMax_keepAll64Bits() {
    InstanceRecord instance =
        new InstanceRecord(
            "dynamo",
            "backend",
            "generate",
            -1L,
            new Transport(Transport.Kind.TCP, "h:1/ffffffffffffffff/generate"),
            Optional.of("msgpack"));
    String json = new String(DiscoveryCodec.encode(instance), StandardCharsets.UTF_8);
    assertThat(instance.key()).endsWith("/ffffffffffffffff");
    assertThat(json).contains("\"instance_id\":18446744073709551615");
    assertThat(json).endsWith(",\"request_plane_codec\":\"msgpack\"}");
    assertThat(DiscoveryCodec.decode(instance.key(), utf8(json))).isEqualTo(instance);
    // 2^53 + 1 is where a double would lose the last bit
    String exact = json.replace("18446744073709551615", "9007199254740993");
    assertThat(
            DiscoveryCodec.decode(
                    "v1/instances/dynamo/backend/generate/20000000000001", utf8(exact))
                .instanceId())
        .isEqualTo(9007199254740993L);
  }

  @Test
  void unknownFieldsAreIgnored_andOptionalOnesMayBeNull() {
    String value =
        "{\"type\":\"Endpoint\",\"component\":\"backend\",\"endpoint\":\"generate\",\"namespace\":\"dynamo\","
            + "\"instance_id\":42,\"transport\":{\"tcp\":\"h:1/2a/generate\"},\"device_type\":\"cuda\","
            + "\"request_plane_codec\":null,\"later\":{\"x\":[1,2.5]}}";
    InstanceRecord instance =
        (InstanceRecord)
            DiscoveryCodec.decode("v1/instances/dynamo/backend/generate/2a", utf8(value));
    assertThat(instance.instanceId()).isEqualTo(42);
    assertThat(instance.requestPlaneCodec()).isEmpty();
  }

  @Test
  void aLegacyCard_withTopLevelContextLengthOnly_andANullSuffix_reads() {
    String value =
        "{\"type\":\"Model\",\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\","
            + "\"instance_id\":42,\"card_json\":{\"display_name\":\"m\",\"slug\":\"m\",\"context_length\":4096,"
            + "\"kv_cache_block_size\":64,\"migration_limit\":2,\"model_type\":\"Chat|Completions\","
            + "\"model_input\":\"Tokens\",\"tokenizer\":{\"hf_tokenizer_json\":{\"path\":\"nats://h:4222/m/tokenizer.json\","
            + "\"checksum\":\"blake3:00\"}},\"prompt_formatter\":{\"hf_chat_template\":{\"is_custom\":true,"
            + "\"file\":{\"path\":\"/t.jinja\",\"checksum\":\"blake3:01\"}}}},\"model_suffix\":null}";
    ModelCardRecord record =
        (ModelCardRecord) DiscoveryCodec.decode("v1/mdc/dynamo/backend/generate/2a", utf8(value));
    assertThat(record.modelSuffix()).isEmpty();
    assertThat(record.card().contextLength()).hasValue(4096);
    assertThat(record.card().migrationLimit()).isEqualTo(2);
    assertThat(record.card().hasModelType("Completions")).isTrue();
    assertThat(record.card().runtimeConfig()).isEqualTo(RuntimeConfig.DEFAULTS);
    assertThat(record.card().files().get("tokenizer").size()).isEmpty();
    assertThat(record.card().files().get("prompt_formatter"))
        .isEqualTo(
            new CardFile("hf_chat_template", "/t.jinja", "blake3:01", OptionalLong.empty(), true));
  }

  @Test
  void aLoraCard_livesUnderItsSuffix() {
    String value =
        "{\"type\":\"Model\",\"namespace\":\"dynamo\",\"component\":\"backend\",\"endpoint\":\"generate\","
            + "\"instance_id\":42,\"card_json\":{\"display_name\":\"m\",\"slug\":\"m\","
            + "\"kv_cache_block_size\":64,\"model_type\":\"Chat\",\"model_input\":\"Tokens\"},"
            + "\"model_suffix\":\"my_lora\"}";
    String key = "v1/mdc/dynamo/backend/generate/2a/my_lora";
    ModelCardRecord record = (ModelCardRecord) DiscoveryCodec.decode(key, utf8(value));
    assertThat(record.modelSuffix()).contains("my_lora");
    assertThat(record.card().contextLength()).isEmpty();
    assertThat(new String(DiscoveryCodec.encode(record), StandardCharsets.UTF_8))
        .isEqualTo(
            value.replace(
                "{\"display_name\":\"m\",\"slug\":\"m\",\"kv_cache_block_size\":64,\"model_type\":\"Chat\",\"model_input\":\"Tokens\"}",
                "{\"display_name\":\"m\",\"kv_cache_block_size\":64,\"model_input\":\"Tokens\",\"model_type\":\"Chat\",\"slug\":\"m\"}"));
  }

  @Test
  void missingRequiredFields_failNamingTheKeyAndTheField() {
    String key = "v1/instances/dynamo/backend/generate/2a";
    assertThatThrownBy(
            () ->
                DiscoveryCodec.decode(
                    key,
                    utf8(
                        "{\"type\":\"Endpoint\",\"component\":\"backend\",\"endpoint\":\"generate\","
                            + "\"namespace\":\"dynamo\",\"instance_id\":42}")))
        .isInstanceOf(DiscoveryFormatException.class)
        .hasMessageContaining(key)
        .hasMessageContaining("'transport'");
    String cardKey = "v1/mdc/dynamo/backend/generate/2a";
    assertThatThrownBy(
            () ->
                DiscoveryCodec.decode(
                    cardKey,
                    utf8(
                        "{\"type\":\"Model\",\"namespace\":\"dynamo\",\"component\":\"backend\","
                            + "\"endpoint\":\"generate\",\"instance_id\":42,\"card_json\":{\"display_name\":\"m\","
                            + "\"slug\":\"m\",\"model_type\":\"Chat\",\"model_input\":\"Tokens\"}}")))
        .isInstanceOf(DiscoveryFormatException.class)
        .hasMessageContaining(cardKey + " card_json")
        .hasMessageContaining("'kv_cache_block_size'");
  }

  @Test
  void idsThatAreNotU64s_orDisagreeWithTheKey_fail() {
    String key = "v1/instances/dynamo/backend/generate/2a";
    String template =
        "{\"type\":\"Endpoint\",\"component\":\"backend\",\"endpoint\":\"generate\",\"namespace\":\"dynamo\","
            + "\"instance_id\":ID,\"transport\":{\"tcp\":\"h:1\"}}";
    for (String bad : List.of("4.2e1", "-42", "18446744073709551616", "\"42\"")) {
      assertThatThrownBy(() -> DiscoveryCodec.decode(key, utf8(template.replace("ID", bad))))
          .as(bad)
          .isInstanceOf(DiscoveryFormatException.class)
          .hasMessageContaining("'instance_id'");
    }
    assertThatThrownBy(() -> DiscoveryCodec.decode(key, utf8(template.replace("ID", "43"))))
        .isInstanceOf(DiscoveryFormatException.class)
        .hasMessageContaining("belongs at v1/instances/dynamo/backend/generate/2b");
  }

  @Test
  void aValueOfAnotherTypeInABucket_fails() {
    assertThatThrownBy(
            () ->
                DiscoveryCodec.decode(
                    "v1/instances/dynamo/backend/generate/2a",
                    utf8("{\"type\":\"EventSource\",\"topic\":\"t\"}")))
        .isInstanceOf(DiscoveryFormatException.class)
        .hasMessageContaining("'EventSource' where 'Endpoint' belongs");
    assertThatThrownBy(() -> DiscoveryCodec.decode("v1/claims/x", utf8("{}")))
        .isInstanceOf(DiscoveryFormatException.class)
        .hasMessageContaining("no discovery bucket");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
