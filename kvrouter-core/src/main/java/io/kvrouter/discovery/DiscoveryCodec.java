package io.kvrouter.discovery;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Dynamo's discovery values ({@code DiscoveryInstance}, serde {@code tag = "type"}, written with
 * {@code serde_json::to_vec}: compact, fields in declaration order) from and to bytes; see
 * docs/notes/dynamo-discovery.md §1.3 for the versions read.
 *
 * <p>Reading is tolerant as serde's derive is: unknown fields are ignored, optional ones may be
 * missing or {@code null}; a missing required field fails with a {@link DiscoveryFormatException}
 * naming the key and the field. Ids are u64: read exactly, never through a double, and checked
 * against the id the key ends with. Writing gives serde's bytes: the outer record in declaration
 * order, the model card ({@code card_json}, a {@code serde_json::Value}) with every object's keys
 * sorted, as a {@code BTreeMap} writes them.
 */
public final class DiscoveryCodec {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonFactory FACTORY = new JsonFactory();

  private DiscoveryCodec() {}

  /** The record stored at {@code key} with the value {@code value}. */
  public static DiscoveryRecord decode(String key, byte[] value) {
    JsonNode node;
    try {
      node = JSON.readTree(value);
    } catch (IOException e) {
      throw new DiscoveryFormatException(
          "key " + key + ": value is not JSON: " + e.getMessage(), e);
    }
    return decode(key, node);
  }

  /**
   * The record stored at {@code key} with the value {@code node}, already parsed (a Kubernetes
   * {@code DynamoWorkerMetadata} holds the values inside its JSON).
   */
  public static DiscoveryRecord decode(String key, JsonNode node) {
    DiscoveryBucket bucket =
        DiscoveryBucket.of(key)
            .orElseThrow(
                () -> new DiscoveryFormatException("key " + key + " is in no discovery bucket"));
    String where = "key " + key;
    DiscoveryRecord record = decodeValue(bucket, node, where);
    if (!record.key().equals(key)) {
      throw new DiscoveryFormatException(
          where + ": the value belongs at " + record.key() + " (names or instance id differ)");
    }
    return record;
  }

  /**
   * The record {@code node} holds, of the kind {@code bucket} keeps, wherever it is stored; {@code
   * where} names it in errors. Dynamo's Kubernetes discovery reads the values of its maps this way,
   * ignoring their keys.
   */
  public static DiscoveryRecord decodeValue(DiscoveryBucket bucket, JsonNode node, String where) {
    if (node == null || !node.isObject()) {
      throw new DiscoveryFormatException(where + ": value is not a JSON object");
    }
    String type = JsonFields.text(node, "type", where);
    return switch (bucket) {
      case INSTANCES -> instance(expect(type, "Endpoint", node, where), where);
      case MODELS -> model(expect(type, "Model", node, where), where);
      case EVENT_CHANNELS -> channel(expect(type, "EventChannel", node, where), where);
    };
  }

  /** {@code node}, once its {@code type} is the one its bucket holds. */
  private static JsonNode expect(String type, String expected, JsonNode node, String where) {
    if (!type.equals(expected)) {
      throw new DiscoveryFormatException(
          where + ": field 'type' is '" + type + "' where '" + expected + "' belongs");
    }
    return node;
  }

  private static InstanceRecord instance(JsonNode node, String where) {
    JsonNode transport = JsonFields.required(node, "transport", where);
    if (!transport.isObject() || transport.size() != 1) {
      throw new DiscoveryFormatException(
          where + ": field 'transport' must be one of {\"tcp\"|\"nats_tcp\"|\"http\": address}");
    }
    Map.Entry<String, JsonNode> variant = transport.fields().next();
    Transport.Kind kind =
        Transport.Kind.ofTag(variant.getKey())
            .orElseThrow(
                () ->
                    new DiscoveryFormatException(
                        where + ": unknown transport '" + variant.getKey() + "'"));
    if (!variant.getValue().isTextual()) {
      throw new DiscoveryFormatException(
          where + ": field 'transport." + variant.getKey() + "' must be a string");
    }
    return new InstanceRecord(
        JsonFields.text(node, "namespace", where),
        JsonFields.text(node, "component", where),
        JsonFields.text(node, "endpoint", where),
        JsonFields.u64(node, "instance_id", where),
        new Transport(kind, variant.getValue().textValue()),
        JsonFields.optionalText(node, "request_plane_codec", where));
  }

  private static ModelCardRecord model(JsonNode node, String where) {
    return new ModelCardRecord(
        JsonFields.text(node, "namespace", where),
        JsonFields.text(node, "component", where),
        JsonFields.text(node, "endpoint", where),
        JsonFields.u64(node, "instance_id", where),
        ModelCardJson.parse(JsonFields.required(node, "card_json", where), where + " card_json"),
        JsonFields.optionalText(node, "model_suffix", where));
  }

  private static EventChannelRecord channel(JsonNode node, String where) {
    String topic = JsonFields.text(node, "topic", where);
    long id = JsonFields.u64(node, "instance_id", where);
    EventTransport transport =
        eventTransport(JsonFields.required(node, "transport", where), where + " transport");
    JsonNode scope = node.get("scope");
    if (scope != null && !scope.isNull()) {
      return new EventChannelRecord(
          EventChannelRecord.Layout.SCOPED, scope(scope, where + " scope"), topic, id, transport);
    }
    String namespace = JsonFields.text(node, "namespace", where);
    String component = JsonFields.optionalText(node, "component", where).orElse("");
    return new EventChannelRecord(
        EventChannelRecord.Layout.COMPONENT,
        component.isEmpty()
            ? EventScope.namespace(namespace)
            : EventScope.component(namespace, component),
        topic,
        id,
        transport);
  }

  private static EventScope scope(JsonNode node, String where) {
    String kind = JsonFields.text(node, "kind", where);
    return switch (kind) {
      case "namespace" -> EventScope.namespace(JsonFields.text(node, "name", where));
      case "component" ->
          EventScope.component(
              JsonFields.text(node, "namespace", where), JsonFields.text(node, "component", where));
      case "endpoint" -> {
        JsonNode endpoint = JsonFields.required(node, "endpoint", where);
        String at = where + ".endpoint";
        yield EventScope.endpoint(
            JsonFields.text(endpoint, "namespace", at),
            JsonFields.text(endpoint, "component", at),
            JsonFields.text(endpoint, "name", at));
      }
      default -> throw new DiscoveryFormatException(where + ": unknown scope kind '" + kind + "'");
    };
  }

  private static EventTransport eventTransport(JsonNode node, String where) {
    String kind = JsonFields.text(node, "kind", where);
    JsonNode config = JsonFields.required(node, "config", where);
    String at = where + ".config";
    return switch (kind) {
      case "Nats" -> new EventTransport.Nats(JsonFields.text(config, "subject_prefix", at));
      case "Zmq" -> new EventTransport.Zmq(JsonFields.text(config, "endpoint", at));
      case "ZmqBroker" ->
          new EventTransport.ZmqBroker(
              strings(config, "xsub_endpoints", at), strings(config, "xpub_endpoints", at));
      default ->
          throw new DiscoveryFormatException(where + ": unknown event transport '" + kind + "'");
    };
  }

  private static List<String> strings(JsonNode node, String field, String where) {
    JsonNode array = JsonFields.required(node, field, where);
    if (!array.isArray()) {
      throw new DiscoveryFormatException(where + ": field '" + field + "' must be an array");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode item : array) {
      if (!item.isTextual()) {
        throw new DiscoveryFormatException(where + ": field '" + field + "' must hold strings");
      }
      out.add(item.textValue());
    }
    return out;
  }

  /** The value Dynamo stores for {@code record}, byte for byte. */
  public static byte[] encode(DiscoveryRecord record) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(bytes)) {
      g.writeStartObject();
      if (record instanceof InstanceRecord i) {
        writeInstance(g, i);
      } else if (record instanceof ModelCardRecord m) {
        writeModel(g, m);
      } else {
        writeChannel(g, (EventChannelRecord) record);
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void writeInstance(JsonGenerator g, InstanceRecord i) throws IOException {
    g.writeStringField("type", "Endpoint");
    g.writeStringField("component", i.component());
    g.writeStringField("endpoint", i.endpoint());
    g.writeStringField("namespace", i.namespace());
    writeU64(g, "instance_id", i.instanceId());
    g.writeObjectFieldStart("transport");
    g.writeStringField(i.transport().kind().tag(), i.transport().address());
    g.writeEndObject();
    Optional<String> codec = i.requestPlaneCodec();
    if (codec.isPresent()) {
      g.writeStringField("request_plane_codec", codec.get());
    }
  }

  private static void writeModel(JsonGenerator g, ModelCardRecord m) throws IOException {
    g.writeStringField("type", "Model");
    g.writeStringField("namespace", m.namespace());
    g.writeStringField("component", m.component());
    g.writeStringField("endpoint", m.endpoint());
    writeU64(g, "instance_id", m.instanceId());
    g.writeFieldName("card_json");
    writeSorted(g, m.card().json());
    if (m.modelSuffix().isPresent()) {
      g.writeStringField("model_suffix", m.modelSuffix().get());
    }
  }

  private static void writeChannel(JsonGenerator g, EventChannelRecord c) throws IOException {
    g.writeStringField("type", "EventChannel");
    EventScope scope = c.scope();
    if (c.layout() == EventChannelRecord.Layout.SCOPED) {
      g.writeObjectFieldStart("scope");
      switch (scope.kind()) {
        case NAMESPACE -> {
          g.writeStringField("kind", "namespace");
          g.writeStringField("name", scope.namespace());
        }
        case COMPONENT -> {
          g.writeStringField("kind", "component");
          g.writeStringField("namespace", scope.namespace());
          g.writeStringField("component", scope.component());
        }
        case ENDPOINT -> {
          g.writeStringField("kind", "endpoint");
          g.writeObjectFieldStart("endpoint");
          g.writeStringField("namespace", scope.namespace());
          g.writeStringField("component", scope.component());
          g.writeStringField("name", scope.endpoint());
          g.writeEndObject();
        }
      }
      g.writeEndObject();
    } else {
      g.writeStringField("namespace", scope.namespace());
      g.writeStringField("component", scope.component() == null ? "" : scope.component());
    }
    g.writeStringField("topic", c.topic());
    writeU64(g, "instance_id", c.instanceId());
    g.writeObjectFieldStart("transport");
    EventTransport transport = c.transport();
    if (transport instanceof EventTransport.Nats n) {
      g.writeStringField("kind", "Nats");
      g.writeObjectFieldStart("config");
      g.writeStringField("subject_prefix", n.subjectPrefix());
    } else if (transport instanceof EventTransport.Zmq z) {
      g.writeStringField("kind", "Zmq");
      g.writeObjectFieldStart("config");
      g.writeStringField("endpoint", z.endpoint());
    } else {
      EventTransport.ZmqBroker b = (EventTransport.ZmqBroker) transport;
      g.writeStringField("kind", "ZmqBroker");
      g.writeObjectFieldStart("config");
      writeStrings(g, "xsub_endpoints", b.xsubEndpoints());
      writeStrings(g, "xpub_endpoints", b.xpubEndpoints());
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void writeStrings(JsonGenerator g, String field, List<String> values)
      throws IOException {
    g.writeArrayFieldStart(field);
    for (String v : values) {
      g.writeString(v);
    }
    g.writeEndArray();
  }

  /** A u64 as serde writes it: the unsigned decimal digits. */
  private static void writeU64(JsonGenerator g, String field, long value) throws IOException {
    g.writeFieldName(field);
    g.writeNumber(DynamoIds.decimal(value));
  }

  /** {@code node} with every object's keys in byte order, as serde_json's {@code Value} writes. */
  private static void writeSorted(JsonGenerator g, JsonNode node) throws IOException {
    if (node.isObject()) {
      List<String> names = new ArrayList<>();
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        names.add(it.next());
      }
      names.sort(DiscoveryCodec::compareUtf8);
      g.writeStartObject();
      for (String name : names) {
        g.writeFieldName(name);
        writeSorted(g, node.get(name));
      }
      g.writeEndObject();
    } else if (node.isArray()) {
      g.writeStartArray();
      for (JsonNode item : node) {
        writeSorted(g, item);
      }
      g.writeEndArray();
    } else {
      JSON.writeTree(g, node);
    }
  }

  /** Rust's {@code String} order: by UTF-8 bytes (not Java's UTF-16 units). */
  private static int compareUtf8(String a, String b) {
    return java.util.Arrays.compareUnsigned(
        a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
