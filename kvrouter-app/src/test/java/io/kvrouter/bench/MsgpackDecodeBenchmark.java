package io.kvrouter.bench;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
import io.kvrouter.protocol.msgpack.MsgpackReader;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import io.kvrouter.testing.HexFixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Time to decode the KV event payloads that arrive as msgpack, all read through {@link
 * MsgpackReader}, and the reader itself against msgpack-core's {@link MessageUnpacker} walking the
 * same bytes. One op decodes every payload of the set once.
 *
 * <ul>
 *   <li>{@code vllm}: {@link VllmEventCodec#decode} of each vLLM payload.
 *   <li>{@code dynamo}: {@link DynamoMsgpackCodec#decodeTieredPayload} of each Dynamo payload.
 *   <li>{@code dynamoFrame}: {@link EventEnvelopeCodec#decodeFrame}, then the envelope's payload as
 *       in {@code dynamo}: what the router does per Dynamo ZMQ message.
 *   <li>{@code skipMsgpackReader} and {@code baselineSkipMessageUnpacker}: every vLLM and Dynamo
 *       payload walked value by value without building anything, by {@link MsgpackReader#skip} and
 *       by {@link MessageUnpacker#skipValue}: the two readers side by side on the same work.
 * </ul>
 *
 * Payload sets: {@code golden} is the fixtures of core's tests ({@code golden/vllm}, ten payloads
 * of both generations, and {@code golden/dynamo-e3}, three frames of one block each and one
 * removed-and-cleared payload); {@code large} is one engine prefill as the event-plane benchmark
 * sends it, one BlockStored of 32 blocks of 16 random tokens (below 151,643, Qwen3's vocabulary) in
 * both vLLM encodings, and one Dynamo RouterEvent of 32 stored blocks, bare and in a frame.
 *
 * <p>Run it with ten warm-up iterations, {@code scripts/bench-jmh MsgpackDecode -f 2 -wi 10}: with
 * the default three, on a loaded machine, the JIT had not finished with the golden set's many paths
 * and the iterations fell from about 70 µs to 4. The figures, and those of the decoders before
 * {@link MsgpackReader}, are in docs/benchmarks.md ("One msgpack reader for vLLM and Dynamo
 * events").
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class MsgpackDecodeBenchmark {
  private static final List<String> VLLM_GOLDENS =
      List.of(
          "array_extra_elements",
          "array_legacy",
          "array_legacy_2elem",
          "array_lora_hybrid",
          "bin_hashes",
          "map_batch",
          "map_current",
          "map_lora_hybrid",
          "map_unknown_keys",
          "map_v0_26_observed");
  private static final List<String> E3_FRAMES =
      List.of("s1_frame", "s2_batch_frame", "s3_batch_frame");
  private static final int BLOCKS = 32;
  private static final int BLOCK_SIZE = 16;

  @Param({"golden", "large"})
  public String payloads;

  private byte[][] vllm;
  private byte[][] dynamo;
  private byte[][] frames;

  @Setup
  public void setUp() {
    if (payloads.equals("golden")) {
      vllm =
          VLLM_GOLDENS.stream()
              .map(name -> HexFixtures.bytes("/golden/vllm/" + name + ".msgpack"))
              .toArray(byte[][]::new);
      frames = E3_FRAMES.stream().map(MsgpackDecodeBenchmark::hex).toArray(byte[][]::new);
      dynamo =
          Stream.concat(
                  Stream.of(frames).map(frame -> EventEnvelopeCodec.decodeFrame(frame).payload()),
                  Stream.of(hex("s3_removed_cleared_payload")))
              .toArray(byte[][]::new);
    } else {
      SplittableRandom random = new SplittableRandom(42);
      VllmEventBatch prefill = vllmPrefill(random);
      vllm =
          new byte[][] {
            VllmEventCodec.encode(prefill, VllmEventCodec.Encoding.MAP),
            VllmEventCodec.encode(prefill, VllmEventCodec.Encoding.ARRAY)
          };
      dynamo = new byte[][] {DynamoMsgpackCodec.encodeBatch(List.of(dynamoPrefill(random)))};
      frames =
          new byte[][] {
            EventEnvelopeCodec.encodeFrame(
                new EventEnvelope(
                    1, 0, 1_767_225_600_000L, DynamoMsgpackCodec.KV_EVENTS_TOPIC, dynamo[0]))
          };
    }
    // both readers must walk every payload to its end
    for (byte[] payload : Stream.concat(Stream.of(vllm), Stream.of(dynamo)).toList()) {
      MsgpackReader reader = new MsgpackReader(payload);
      reader.skip(1);
      if (reader.remaining() != 0 || unpackerSkip(payload) != payload.length) {
        throw new IllegalStateException("a reader stops short of a payload's end");
      }
    }
  }

  @Benchmark
  public void vllm(Blackhole bh) {
    for (byte[] payload : vllm) {
      bh.consume(VllmEventCodec.decode(payload));
    }
  }

  @Benchmark
  public void dynamo(Blackhole bh) {
    for (byte[] payload : dynamo) {
      bh.consume(DynamoMsgpackCodec.decodeTieredPayload(payload));
    }
  }

  @Benchmark
  public void dynamoFrame(Blackhole bh) {
    for (byte[] frame : frames) {
      bh.consume(
          DynamoMsgpackCodec.decodeTieredPayload(EventEnvelopeCodec.decodeFrame(frame).payload()));
    }
  }

  @Benchmark
  public void skipMsgpackReader(Blackhole bh) {
    for (byte[][] set : new byte[][][] {vllm, dynamo}) {
      for (byte[] payload : set) {
        MsgpackReader reader = new MsgpackReader(payload);
        reader.skip(1);
        bh.consume(reader.position());
      }
    }
  }

  @Benchmark
  public void baselineSkipMessageUnpacker(Blackhole bh) {
    for (byte[][] set : new byte[][][] {vllm, dynamo}) {
      for (byte[] payload : set) {
        bh.consume(unpackerSkip(payload));
      }
    }
  }

  private static long unpackerSkip(byte[] payload) {
    try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(payload)) {
      unpacker.skipValue();
      return unpacker.getTotalReadBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static VllmEventBatch vllmPrefill(SplittableRandom random) {
    List<Long> hashes = new ArrayList<>(BLOCKS);
    int[] tokens = new int[BLOCKS * BLOCK_SIZE];
    for (int i = 0; i < BLOCKS; i++) {
      hashes.add(random.nextLong());
    }
    for (int t = 0; t < tokens.length; t++) {
      tokens[t] = random.nextInt(151_643);
    }
    VllmEvent stored = VllmEvent.BlockStored.of(hashes, null, tokens, BLOCK_SIZE);
    return new VllmEventBatch(1_767_225_600.25, List.of(stored), 0);
  }

  private static DynamoRouterEvent dynamoPrefill(SplittableRandom random) {
    List<KvCacheEvent.StoredBlock> blocks = new ArrayList<>(BLOCKS);
    for (int i = 0; i < BLOCKS; i++) {
      blocks.add(new KvCacheEvent.StoredBlock(random.nextLong(), random.nextLong()));
    }
    return new DynamoRouterEvent(
        new RouterEvent(WorkerRank.of("7"), new KvCacheEvent.Stored(null, blocks)), 1);
  }

  private static byte[] hex(String e3Fixture) {
    return HexFixtures.load("/golden/dynamo-e3/" + e3Fixture + ".hex");
  }
}
