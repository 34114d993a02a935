package io.kvrouter.protocol.dynamo;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import java.io.IOException;
import java.util.Objects;

/**
 * JSON of a worker's load report on {@code namespace.{ns}.kv_metrics} ({@code docs/interop.md}
 * §2.5).
 *
 * <p>Written as Dynamo's later {@code ActiveLoad}, with the counts Dynamo's earlier {@code
 * ForwardPassMetrics} carried added as extra fields (serde ignores fields it does not know, so a
 * Dynamo router reads the first four):
 *
 * <pre>
 * {"worker_id": u64, "dp_rank": u32, "active_decode_blocks": u64, "active_prefill_tokens": u64,
 *  "kv_used_blocks": u64, "kv_total_blocks": u64, "num_requests_waiting": u64,
 *  "num_requests_running": u64}
 * </pre>
 *
 * Read: that form with any field but {@code worker_id} absent or null, and Dynamo's earlier {@code
 * LoadEvent}:
 *
 * <pre>
 * {"worker_id": u64, "data": {"worker_stats": {"data_parallel_rank": u32|null,
 *     "request_active_slots": u64, "request_total_slots": u64, "num_requests_waiting": u64},
 *   "kv_stats": {"kv_active_blocks": u64, "kv_total_blocks": u64, ...}, ...}}
 * </pre>
 *
 * where {@code kv_active_blocks} counts as both active decode blocks and blocks in use, and {@code
 * request_active_slots} as running requests.
 */
public final class WorkerLoadCodec {
  /** The subject token after the namespace. */
  public static final String KV_METRICS = "kv_metrics";

  private WorkerLoadCodec() {}

  /** {@code namespace.{ns}.kv_metrics}. */
  public static String subject(String namespace) {
    return "namespace." + namespace + "." + KV_METRICS;
  }

  public static byte[] encode(WorkerLoadReport report) {
    Objects.requireNonNull(report, "report");
    long workerId = DynamoEventCodec.workerIdToU64(report.rank().workerId());
    return DynamoEventCodec.write(
        g -> {
          g.writeStartObject();
          g.writeFieldName("worker_id");
          DynamoEventCodec.writeU64(g, workerId);
          g.writeNumberField("dp_rank", report.rank().dpRank());
          writeCount(g, "active_decode_blocks", report.activeDecodeBlocks());
          writeCount(g, "active_prefill_tokens", report.activePrefillTokens());
          writeCount(g, "kv_used_blocks", report.kvUsedBlocks());
          writeCount(g, "kv_total_blocks", report.kvTotalBlocks());
          writeCount(g, "num_requests_waiting", report.requestsWaiting());
          writeCount(g, "num_requests_running", report.requestsRunning());
          g.writeEndObject();
        });
  }

  public static WorkerLoadReport decode(byte[] json) {
    JsonNode root = DynamoEventCodec.object(DynamoEventCodec.parse(json), "$");
    String workerId =
        DynamoEventCodec.workerIdFromU64(
            DynamoEventCodec.u64(DynamoEventCodec.required(root, "worker_id", ""), "worker_id"));
    JsonNode data = root.get("data");
    if (data == null || data.isNull()) {
      return new WorkerLoadReport(
          new WorkerRank(workerId, DynamoEventCodec.dpRank(root.get("dp_rank"), "dp_rank")),
          count(root, "active_decode_blocks", ""),
          count(root, "active_prefill_tokens", ""),
          count(root, "kv_used_blocks", ""),
          count(root, "kv_total_blocks", ""),
          count(root, "num_requests_waiting", ""),
          count(root, "num_requests_running", ""));
    }
    DynamoEventCodec.object(data, "data");
    JsonNode workerStats = section(data, "worker_stats");
    JsonNode kvStats = section(data, "kv_stats");
    long kvActive = count(kvStats, "kv_active_blocks", "data.kv_stats");
    return new WorkerLoadReport(
        new WorkerRank(
            workerId,
            DynamoEventCodec.dpRank(
                workerStats.get("data_parallel_rank"), "data.worker_stats.data_parallel_rank")),
        kvActive,
        WorkerLoadReport.UNKNOWN,
        kvActive,
        count(kvStats, "kv_total_blocks", "data.kv_stats"),
        count(workerStats, "num_requests_waiting", "data.worker_stats"),
        count(workerStats, "request_active_slots", "data.worker_stats"));
  }

  private static JsonNode section(JsonNode data, String field) {
    JsonNode node = data.get(field);
    if (node == null || node.isNull()) {
      return JsonNodeFactory.instance.objectNode();
    }
    return DynamoEventCodec.object(node, "data." + field);
  }

  private static void writeCount(JsonGenerator g, String field, long value) throws IOException {
    g.writeFieldName(field);
    if (value == WorkerLoadReport.UNKNOWN) {
      g.writeNull();
    } else {
      g.writeNumber(value);
    }
  }

  private static long count(JsonNode parent, String field, String parentPath) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return WorkerLoadReport.UNKNOWN;
    }
    String path = parentPath.isEmpty() ? field : parentPath + "." + field;
    long value = DynamoEventCodec.u64(node, path);
    if (value < 0) {
      throw new DynamoEventFormatException(
          path + ": " + Long.toUnsignedString(value) + " is too large for a load count");
    }
    return value;
  }
}
