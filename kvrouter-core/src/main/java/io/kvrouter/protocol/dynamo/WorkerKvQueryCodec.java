package io.kvrouter.protocol.dynamo;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * JSON of the router's recovery query to a worker and the worker's answer (Dynamo's {@code
 * WorkerKvQueryRequest} / {@code WorkerKvQueryResponse}, serde JSON; {@code docs/interop.md} §3).
 * The router asks over the request plane, at the worker's endpoint {@link #sourceEndpoint(long)
 * worker_kv_query_source_{publisher_id:x}} (Dynamo v1.5 and later) or {@link #endpoint(int)
 * worker_kv_indexer_query_dp{rank}} (earlier); the answer is the data of the one item of the
 * response stream.
 *
 * <pre>
 * request:   {"worker_id": u64, "dp_rank": u32, "start_event_id": u64|null, "end_event_id": u64|null}
 *
 * response (externally tagged):
 *   {"Events":   {"events": [RouterEvent, ...], "last_event_id": u64}}   also read: {"Events": [...]}
 *   {"TreeDump": {"events": [RouterEvent, ...], "last_event_id": u64}}   also read: {"TreeDump": [...]}
 *   {"TooNew":   {"requested_start": u64|null, "requested_end": u64|null, "newest_available": u64}}
 *   {"InvalidRange": {"start_id": u64, "end_id": u64}}
 *   {"Error": "message"}
 * </pre>
 *
 * The bare-array forms are older Dynamo's; such a tree dump does not say its last event id, and
 * decodes with {@code lastEventId} null (and encodes back to the bare array).
 *
 * <p>Decoding takes unknown fields and variants' extra fields in its stride (a newer worker's
 * {@code reset_scope}, a newer router's {@code supports_tree_dump_failed}); {@code dp_rank} absent
 * reads as 0. Anything malformed is a {@link DynamoEventFormatException} naming the field.
 */
public final class WorkerKvQueryCodec {
  /** The name of a rank's query endpoint, before the rank (Dynamo before v1.5). */
  public static final String ENDPOINT_PREFIX = "worker_kv_indexer_query_dp";

  /**
   * The name of a KV event publisher's query endpoint, before its publisher id in lowercase hex
   * (Dynamo v1.5 and later, {@code
   * lib/llm/src/kv_router/indexer/recovery/worker_query_endpoint.rs}; {@code docs/interop.md}
   * §10.3).
   */
  public static final String SOURCE_ENDPOINT_PREFIX = "worker_kv_query_source_";

  private WorkerKvQueryCodec() {}

  /**
   * The router's question: events {@code start..end} of {@code (workerId, dpRank)}, inclusive;
   * {@code start} null asks for a tree dump, {@code end} null for everything up to the newest.
   */
  public record Query(long workerId, int dpRank, Long start, Long end) {
    public Query {
      if (dpRank < 0) {
        throw new IllegalArgumentException("dpRank must be >= 0");
      }
    }
  }

  /** {@code worker_kv_indexer_query_dp{dpRank}}: the endpoint where a worker answers for a rank. */
  public static String endpoint(int dpRank) {
    if (dpRank < 0) {
      throw new IllegalArgumentException("dpRank must be >= 0");
    }
    return ENDPOINT_PREFIX + dpRank;
  }

  /**
   * {@code worker_kv_query_source_{publisherId:x}}: where Dynamo v1.5 answers for the ranks whose
   * events publisher {@code publisherId} (a u64, written as Rust's {@code {:x}} writes it:
   * lowercase, unpadded) sends.
   */
  public static String sourceEndpoint(long publisherId) {
    return SOURCE_ENDPOINT_PREFIX + Long.toHexString(publisherId);
  }

  public static byte[] encodeQuery(Query query) {
    Objects.requireNonNull(query, "query");
    return DynamoEventCodec.write(
        g -> {
          g.writeStartObject();
          g.writeFieldName("worker_id");
          DynamoEventCodec.writeU64(g, query.workerId());
          g.writeNumberField("dp_rank", query.dpRank());
          writeOptionalU64(g, "start_event_id", query.start());
          writeOptionalU64(g, "end_event_id", query.end());
          g.writeEndObject();
        });
  }

  public static Query decodeQuery(byte[] json) {
    return decodeQuery(json, 0);
  }

  /**
   * The question in {@code json}; one without {@code dp_rank} (Dynamo releases whose rank is in the
   * endpoint's name only) asks for {@code absentDpRank}.
   */
  public static Query decodeQuery(byte[] json, int absentDpRank) {
    JsonNode root = DynamoEventCodec.object(DynamoEventCodec.parse(json), "$");
    JsonNode dpRank = root.get("dp_rank");
    return new Query(
        DynamoEventCodec.u64(DynamoEventCodec.required(root, "worker_id", ""), "worker_id"),
        dpRank == null ? absentDpRank : DynamoEventCodec.dpRank(dpRank, "dp_rank"),
        optionalU64(root, "start_event_id"),
        optionalU64(root, "end_event_id"));
  }

  public static byte[] encodeResult(WorkerKvQueryResult result) {
    Objects.requireNonNull(result, "result");
    return DynamoEventCodec.write(
        g -> {
          g.writeStartObject();
          if (result instanceof WorkerKvQueryResult.Events events) {
            List<DynamoRouterEvent> list = events.events();
            writeEvents(
                g, "Events", list, list.isEmpty() ? 0 : list.get(list.size() - 1).eventId());
          } else if (result instanceof WorkerKvQueryResult.TreeDump dump) {
            if (dump.lastEventId() == null) {
              g.writeFieldName("TreeDump");
              writeEventArray(g, dump.events());
            } else {
              writeEvents(g, "TreeDump", dump.events(), dump.lastEventId());
            }
          } else if (result instanceof WorkerKvQueryResult.TooNew tooNew) {
            g.writeFieldName("TooNew");
            g.writeStartObject();
            writeOptionalU64(g, "requested_start", tooNew.requestedStart());
            writeOptionalU64(g, "requested_end", tooNew.requestedEnd());
            g.writeFieldName("newest_available");
            DynamoEventCodec.writeU64(g, tooNew.newestAvailable());
            g.writeEndObject();
          } else if (result instanceof WorkerKvQueryResult.InvalidRange invalid) {
            g.writeFieldName("InvalidRange");
            g.writeStartObject();
            g.writeFieldName("start_id");
            DynamoEventCodec.writeU64(g, invalid.startId());
            g.writeFieldName("end_id");
            DynamoEventCodec.writeU64(g, invalid.endId());
            g.writeEndObject();
          } else {
            g.writeStringField("Error", ((WorkerKvQueryResult.Error) result).message());
          }
          g.writeEndObject();
        });
  }

  public static WorkerKvQueryResult decodeResult(byte[] json) {
    return decodeResult(DynamoEventCodec.parse(json));
  }

  /** The answer in {@code json}, already parsed (the data of a response-stream item). */
  public static WorkerKvQueryResult decodeResult(JsonNode json) {
    JsonNode root = DynamoEventCodec.object(json, "$");
    if (root.size() != 1) {
      throw new DynamoEventFormatException(
          "$: expected exactly one variant key (Events, TreeDump, TooNew, InvalidRange, Error),"
              + " got "
              + root.size());
    }
    Map.Entry<String, JsonNode> variant = root.fields().next();
    String path = variant.getKey();
    JsonNode body = variant.getValue();
    switch (path) {
      case "Events":
        return new WorkerKvQueryResult.Events(
            events(
                body.isArray()
                    ? body
                    : DynamoEventCodec.required(
                        DynamoEventCodec.object(body, path), "events", path),
                path + ".events"));
      case "TreeDump":
        if (body.isArray()) {
          return new WorkerKvQueryResult.TreeDump(events(body, path), null);
        }
        DynamoEventCodec.object(body, path);
        return new WorkerKvQueryResult.TreeDump(
            events(DynamoEventCodec.required(body, "events", path), path + ".events"),
            DynamoEventCodec.u64(
                DynamoEventCodec.required(body, "last_event_id", path), path + ".last_event_id"));
      case "TooNew":
        DynamoEventCodec.object(body, path);
        Long start = optionalU64(body, "requested_start");
        return new WorkerKvQueryResult.TooNew(
            start == null ? 0 : start,
            optionalU64(body, "requested_end"),
            DynamoEventCodec.u64(
                DynamoEventCodec.required(body, "newest_available", path),
                path + ".newest_available"));
      case "InvalidRange":
        DynamoEventCodec.object(body, path);
        return new WorkerKvQueryResult.InvalidRange(
            DynamoEventCodec.u64(
                DynamoEventCodec.required(body, "start_id", path), path + ".start_id"),
            DynamoEventCodec.u64(
                DynamoEventCodec.required(body, "end_id", path), path + ".end_id"));
      case "Error":
        if (!body.isTextual()) {
          throw DynamoEventCodec.wrongType(path, "a string", body);
        }
        return new WorkerKvQueryResult.Error(body.textValue());
      default:
        throw new DynamoEventFormatException(
            "$: unknown variant \""
                + path
                + "\", expected Events, TreeDump, TooNew, InvalidRange or Error");
    }
  }

  private static void writeEvents(
      JsonGenerator g, String variant, List<DynamoRouterEvent> events, long lastEventId)
      throws IOException {
    g.writeFieldName(variant);
    g.writeStartObject();
    g.writeFieldName("events");
    writeEventArray(g, events);
    g.writeFieldName("last_event_id");
    DynamoEventCodec.writeU64(g, lastEventId);
    g.writeEndObject();
  }

  private static void writeEventArray(JsonGenerator g, List<DynamoRouterEvent> events)
      throws IOException {
    g.writeStartArray();
    for (DynamoRouterEvent event : events) {
      DynamoEventCodec.writeRouterEvent(g, event);
    }
    g.writeEndArray();
  }

  private static List<DynamoRouterEvent> events(JsonNode array, String path) {
    if (!array.isArray()) {
      throw DynamoEventCodec.wrongType(path, "an array", array);
    }
    List<DynamoRouterEvent> out = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      out.add(DynamoEventCodec.routerEvent(array.get(i), path + "[" + i + "]"));
    }
    return out;
  }

  private static void writeOptionalU64(JsonGenerator g, String field, Long value)
      throws IOException {
    g.writeFieldName(field);
    if (value == null) {
      g.writeNull();
    } else {
      DynamoEventCodec.writeU64(g, value);
    }
  }

  private static Long optionalU64(JsonNode parent, String field) {
    JsonNode node = parent.get(field);
    return node == null || node.isNull() ? null : DynamoEventCodec.u64(node, field);
  }
}
