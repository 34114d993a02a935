package io.kvrouter.protocol.dynamo;

import static io.kvrouter.protocol.dynamo.MsgpackIn.at;

import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.AddRequest;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.Data;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.Free;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.MarkPrefillCompleted;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.PrefillLoadHint;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.msgpack.core.MessagePacker;
import org.msgpack.value.ValueType;

/**
 * The msgpack of Dynamo's router replica sync ({@code docs/notes/dynamo-replica-sync.md} §2, §3):
 * one {@link ActiveSequenceEvent} per message on NATS, a batch of them on ZMQ, each the payload of
 * an {@link EventEnvelope} on topic {@value #TOPIC}.
 *
 * <h2>An event: an rmp_serde named map</h2>
 *
 * <pre>
 *   map(5, or 6 with stride) {
 *     "request_id": str,
 *     "worker":     map(2) { "worker_id": u64, "dp_rank": u32 },
 *     "data":       "Free" | "MarkPrefillCompleted"
 *                 | map(1) { "AddRequest": map(4) {
 *                       "token_sequence":         [u64, ...] | nil,
 *                       "track_prefill_tokens":   bool,
 *                       "expected_output_tokens": u32 | nil,
 *                       "prefill_load_hint":      nil | map(2) {
 *                           "initial_effective_prefill_tokens": u64,
 *                           "expected_prefill_duration": nil | map(2) { "secs": u64, "nanos": u32 } } } },
 *     "router_id":  u64,
 *     "stride":     u64            (only when not 1, and only from the branch that has it)
 *     "lora_name":  str | nil
 *   }
 *
 *   a batch:  map(1) { "events": [event, ...] }      at most {@value #MAX_BATCH_EVENTS} events
 * </pre>
 *
 * Written in that key order with the smallest forms, as {@code rmp_serde::to_vec_named} writes
 * Dynamo's types ({@link MsgpackOut}). Read in any key order; unknown keys are skipped; a known key
 * twice is an error; {@code request_id}, {@code worker}, {@code data} and {@code router_id} are
 * required; an absent {@code lora_name}, {@code stride}, {@code expected_output_tokens} or {@code
 * prefill_load_hint} is null, an absent {@code track_prefill_tokens} is true, and an absent {@code
 * token_sequence} is null, as serde reads them. Every failure is a {@link
 * DynamoEventFormatException} naming the path ({@code
 * events[3].data.AddRequest.token_sequence[0]}).
 *
 * <p>Thread-safe and stateless.
 */
public final class ActiveSequenceEventCodec {
  /** The event plane topic, under the workers' endpoint. */
  public static final String TOPIC = "active_sequences_events";

  /** The most events a ZMQ batch may carry; Dynamo drops larger batches. */
  public static final int MAX_BATCH_EVENTS = 256;

  private static final String ADD_REQUEST = "AddRequest";
  private static final String FREE = "Free";
  private static final String MARK_PREFILL_COMPLETED = "MarkPrefillCompleted";
  private static final long U32_MAX = 0xFFFF_FFFFL;

  private ActiveSequenceEventCodec() {}

  /** One event, as Dynamo sends it on NATS. */
  public static byte[] encode(ActiveSequenceEvent event) {
    Objects.requireNonNull(event, "event");
    return MsgpackOut.write(out -> writeEvent(out, event));
  }

  /** A batch, as Dynamo sends it on ZMQ. */
  public static byte[] encodeBatch(List<ActiveSequenceEvent> events) {
    Objects.requireNonNull(events, "events");
    if (events.size() > MAX_BATCH_EVENTS) {
      throw new IllegalArgumentException(
          events.size() + " events in one batch; at most " + MAX_BATCH_EVENTS);
    }
    return MsgpackOut.write(
        out -> {
          out.packMapHeader(1);
          MsgpackOut.string(out, "events");
          out.packArrayHeader(events.size());
          for (ActiveSequenceEvent event : events) {
            writeEvent(out, event);
          }
        });
  }

  public static ActiveSequenceEvent decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return MsgpackIn.decode(
        bytes,
        in -> {
          ActiveSequenceEvent event = event(in, "");
          in.end("");
          return event;
        });
  }

  public static List<ActiveSequenceEvent> decodeBatch(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return MsgpackIn.decode(bytes, ActiveSequenceEventCodec::batch);
  }

  // ---- writing

  private static void writeEvent(MessagePacker out, ActiveSequenceEvent event) throws IOException {
    out.packMapHeader(event.stride() == null ? 5 : 6);
    MsgpackOut.string(out, "request_id");
    MsgpackOut.string(out, event.requestId());
    MsgpackOut.string(out, "worker");
    out.packMapHeader(2);
    MsgpackOut.string(out, "worker_id");
    MsgpackOut.u64(out, DynamoEventCodec.workerIdToU64(event.worker().workerId()));
    MsgpackOut.string(out, "dp_rank");
    out.packInt(event.worker().dpRank());
    MsgpackOut.string(out, "data");
    writeData(out, event.data());
    MsgpackOut.string(out, "router_id");
    MsgpackOut.u64(out, event.routerId());
    if (event.stride() != null) {
      MsgpackOut.string(out, "stride");
      out.packInt(event.stride());
    }
    MsgpackOut.string(out, "lora_name");
    if (event.loraName() == null) {
      out.packNil();
    } else {
      MsgpackOut.string(out, event.loraName());
    }
  }

  private static void writeData(MessagePacker out, Data data) throws IOException {
    if (data instanceof Free) {
      MsgpackOut.string(out, FREE);
      return;
    }
    if (data instanceof MarkPrefillCompleted) {
      MsgpackOut.string(out, MARK_PREFILL_COMPLETED);
      return;
    }
    AddRequest add = (AddRequest) data;
    out.packMapHeader(1);
    MsgpackOut.string(out, ADD_REQUEST);
    out.packMapHeader(4);
    MsgpackOut.string(out, "token_sequence");
    long[] hashes = add.tokenSequence();
    if (hashes == null) {
      out.packNil();
    } else {
      out.packArrayHeader(hashes.length);
      for (long hash : hashes) {
        MsgpackOut.u64(out, hash);
      }
    }
    MsgpackOut.string(out, "track_prefill_tokens");
    out.packBoolean(add.trackPrefillTokens());
    MsgpackOut.string(out, "expected_output_tokens");
    MsgpackOut.optU64(out, add.expectedOutputTokens());
    MsgpackOut.string(out, "prefill_load_hint");
    PrefillLoadHint hint = add.prefillLoadHint();
    if (hint == null) {
      out.packNil();
      return;
    }
    out.packMapHeader(2);
    MsgpackOut.string(out, "initial_effective_prefill_tokens");
    MsgpackOut.u64(out, hint.initialEffectivePrefillTokens());
    MsgpackOut.string(out, "expected_prefill_duration");
    Duration duration = hint.expectedPrefillDuration();
    if (duration == null) {
      out.packNil();
    } else {
      out.packMapHeader(2);
      MsgpackOut.string(out, "secs");
      MsgpackOut.u64(out, duration.getSeconds());
      MsgpackOut.string(out, "nanos");
      out.packInt(duration.getNano());
    }
  }

  // ---- reading

  private static List<ActiveSequenceEvent> batch(MsgpackIn in) {
    int n = in.mapHeader("");
    MapKeys keys = new MapKeys(in, "", "events");
    List<ActiveSequenceEvent> events = null;
    for (int i = 0; i < n; i++) {
      if (!"events".equals(keys.next())) {
        in.skip("");
        continue;
      }
      int count = in.arrayHeader("events");
      if (count > MAX_BATCH_EVENTS) {
        throw in.fail("events", count + " events; at most " + MAX_BATCH_EVENTS);
      }
      events = new ArrayList<>(count);
      for (int e = 0; e < count; e++) {
        events.add(event(in, "events[" + e + "]"));
      }
    }
    keys.require(events, "events");
    in.end("");
    return events;
  }

  private static ActiveSequenceEvent event(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys =
        new MapKeys(in, path, "request_id", "worker", "data", "router_id", "stride", "lora_name");
    String requestId = null;
    WorkerRank worker = null;
    Data data = null;
    Long routerId = null;
    Integer stride = null;
    String loraName = null;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      String where = key == null ? path : at(path, key);
      switch (key == null ? "" : key) {
        case "request_id" -> requestId = in.string(where);
        case "worker" -> worker = worker(in, where);
        case "data" -> data = data(in, where);
        case "router_id" -> routerId = in.u64(where);
        case "stride" -> stride = in.nil(where) ? null : positiveInt(in, where);
        case "lora_name" -> loraName = in.nil(where) ? null : in.string(where);
        default -> in.skip(path);
      }
    }
    keys.require(requestId, "request_id");
    keys.require(worker, "worker");
    keys.require(data, "data");
    keys.require(routerId, "router_id");
    return new ActiveSequenceEvent(requestId, worker, data, routerId, stride, loraName);
  }

  private static WorkerRank worker(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys = new MapKeys(in, path, "worker_id", "dp_rank");
    Long workerId = null;
    Integer dpRank = null;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      switch (key == null ? "" : key) {
        case "worker_id" -> workerId = in.u64(at(path, key));
        case "dp_rank" -> dpRank = in.u31(at(path, key));
        default -> in.skip(path);
      }
    }
    keys.require(workerId, "worker_id");
    keys.require(dpRank, "dp_rank");
    return new WorkerRank(DynamoEventCodec.workerIdFromU64(workerId), dpRank);
  }

  private static Data data(MsgpackIn in, String path) {
    if (in.peek(path) == ValueType.STRING) {
      String variant = in.string(path);
      return switch (variant) {
        case FREE -> Free.INSTANCE;
        case MARK_PREFILL_COMPLETED -> MarkPrefillCompleted.INSTANCE;
        default -> throw in.fail(path, "unknown variant '" + variant + "'");
      };
    }
    if (in.mapHeader(path) != 1) {
      throw in.fail(path, "expected a map of one variant");
    }
    String variant = in.key(path);
    if (!ADD_REQUEST.equals(variant)) {
      throw in.fail(path, "unknown variant '" + variant + "'");
    }
    return addRequest(in, at(path, ADD_REQUEST));
  }

  private static AddRequest addRequest(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys =
        new MapKeys(
            in,
            path,
            "token_sequence",
            "track_prefill_tokens",
            "expected_output_tokens",
            "prefill_load_hint");
    long[] tokenSequence = null;
    boolean track = true; // serde default
    Long expectedOutput = null;
    PrefillLoadHint hint = null;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      String where = key == null ? path : at(path, key);
      switch (key == null ? "" : key) {
        case "token_sequence" -> tokenSequence = in.nil(where) ? null : hashes(in, where);
        case "track_prefill_tokens" -> track = in.bool(where);
        case "expected_output_tokens" -> expectedOutput = in.nil(where) ? null : u32(in, where);
        case "prefill_load_hint" -> hint = in.nil(where) ? null : hint(in, where);
        default -> in.skip(path);
      }
    }
    return new AddRequest(tokenSequence, track, expectedOutput, hint);
  }

  private static long[] hashes(MsgpackIn in, String path) {
    int n = in.arrayHeader(path);
    long[] hashes = new long[n];
    for (int i = 0; i < n; i++) {
      hashes[i] = in.u64(path + "[" + i + "]");
    }
    return hashes;
  }

  private static PrefillLoadHint hint(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys =
        new MapKeys(in, path, "initial_effective_prefill_tokens", "expected_prefill_duration");
    Long tokens = null;
    Duration duration = null;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      String where = key == null ? path : at(path, key);
      switch (key == null ? "" : key) {
        case "initial_effective_prefill_tokens" -> tokens = in.u64(where);
        case "expected_prefill_duration" -> duration = in.nil(where) ? null : duration(in, where);
        default -> in.skip(path);
      }
    }
    keys.require(tokens, "initial_effective_prefill_tokens");
    if (tokens < 0) {
      throw in.fail(
          at(path, "initial_effective_prefill_tokens"),
          Long.toUnsignedString(tokens) + " is too large");
    }
    return new PrefillLoadHint(tokens, duration);
  }

  private static Duration duration(MsgpackIn in, String path) {
    int n = in.mapHeader(path);
    MapKeys keys = new MapKeys(in, path, "secs", "nanos");
    Long secs = null;
    Long nanos = null;
    for (int i = 0; i < n; i++) {
      String key = keys.next();
      String where = key == null ? path : at(path, key);
      switch (key == null ? "" : key) {
        case "secs" -> {
          secs = in.u64(where);
          if (secs < 0) {
            throw in.fail(where, Long.toUnsignedString(secs) + " seconds is too large");
          }
        }
        case "nanos" -> {
          nanos = u32(in, where);
          if (nanos >= 1_000_000_000L) {
            throw in.fail(where, nanos + " nanoseconds is a second or more");
          }
        }
        default -> in.skip(path);
      }
    }
    keys.require(secs, "secs");
    keys.require(nanos, "nanos");
    return Duration.ofSeconds(secs, nanos);
  }

  private static long u32(MsgpackIn in, String path) {
    long value = in.u64(path);
    if (value < 0 || value > U32_MAX) {
      throw in.fail(path, Long.toUnsignedString(value) + " does not fit a u32");
    }
    return value;
  }

  private static int positiveInt(MsgpackIn in, String path) {
    long value = in.u64(path);
    if (value < 1 || value > Integer.MAX_VALUE) {
      throw in.fail(path, Long.toUnsignedString(value) + " is outside 1.." + Integer.MAX_VALUE);
    }
    return (int) value;
  }
}
