package io.kvrouter.bench;

import io.kvrouter.common.Ticker;
import io.kvrouter.events.VllmEventTranslator;
import io.kvrouter.events.zmq.TranslatingListener;
import io.kvrouter.events.zmq.ZmqEventPublisher;
import io.kvrouter.events.zmq.ZmqEventSubscriber;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import io.kvrouter.routing.index.KvIndexer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How fast the router takes in one worker's vLLM KV events, three ways in one run, so the ratios
 * show what each layer costs:
 *
 * <ol>
 *   <li>{@code translate}: the batches, already decoded, through {@link VllmEventTranslator} (the
 *       router hashing every block's tokens) into a {@link KvIndexer}, then a flush;
 *   <li>{@code decode+translate}: the same from msgpack bytes ({@link VllmEventCodec#decode});
 *   <li>{@code zmq}: published by a {@link ZmqEventPublisher} and received by a {@link
 *       ZmqEventSubscriber} over loopback TCP, then the same path; timed until the index has
 *       applied every event.
 * </ol>
 *
 * Each batch stores one sequence of {@code blocks} blocks of 16 tokens from the root, as a vLLM
 * engine does after a prefill. Each way is warmed up and then measured as the median of several
 * rounds ({@link WarmedRate}).
 *
 * <p>Usage: {@code java -cp ... io.kvrouter.bench.KvEventIngest [BATCHES=20000] [BLOCKS=32]
 * [PATHS=translate,decode+translate,zmq]}; naming fewer paths (to profile one) leaves the ratio
 * column out.
 */
public final class KvEventIngest {
  private static final int BLOCK_SIZE = 16;
  private static final WorkerRank RANK = WorkerRank.of("w1");

  public static void main(String[] args) throws Exception {
    int batches = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int blocks = args.length > 1 ? Integer.parseInt(args[1]) : 32;
    List<VllmEventBatch> workload = workload(batches, blocks);
    List<byte[]> payloads = new ArrayList<>();
    for (VllmEventBatch batch : workload) {
      payloads.add(VllmEventCodec.encode(batch, VllmEventCodec.Encoding.MAP));
    }
    List<String> all = List.of("translate", "decode+translate", "zmq");
    List<String> names = args.length > 2 ? List.of(args[2].split(",")) : all;
    if (!all.containsAll(names)) {
      throw new IllegalArgumentException("paths are " + all + ": " + names);
    }
    double[] seconds = new double[names.size()];
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      double rate =
          WarmedRate.median(
              name + " batches",
              () ->
                  batches
                      / switch (name) {
                        case "translate" -> translate(workload, batches);
                        case "decode+translate" -> decodeAndTranslate(payloads, batches);
                        default -> overZmq(workload, batches);
                      });
      seconds[i] = batches / rate;
    }
    boolean ratios = names.equals(all);
    System.out.println(
        "| path | batches | blocks per batch | seconds | batches/s | blocks/s |"
            + (ratios ? " ratio to translate |" : ""));
    System.out.println("|---|---|---|---|---|---|" + (ratios ? "---|" : ""));
    for (int i = 0; i < names.size(); i++) {
      System.out.printf(
          Locale.ROOT,
          "| %s | %d | %d | %.3f | %,.0f | %,.0f |%s%n",
          names.get(i),
          batches,
          blocks,
          seconds[i],
          batches / seconds[i],
          (double) batches * blocks / seconds[i],
          ratios ? String.format(Locale.ROOT, " %.2f× |", seconds[0] / seconds[i]) : "");
    }
  }

  private static List<VllmEventBatch> workload(int batches, int blocks) {
    SplittableRandom random = new SplittableRandom(42);
    List<VllmEventBatch> workload = new ArrayList<>(batches);
    for (int b = 0; b < batches; b++) {
      List<Long> hashes = new ArrayList<>(blocks);
      int[] tokens = new int[blocks * BLOCK_SIZE];
      for (int i = 0; i < blocks; i++) {
        hashes.add(random.nextLong());
      }
      for (int t = 0; t < tokens.length; t++) {
        tokens[t] = random.nextInt(150_000);
      }
      workload.add(
          new VllmEventBatch(
              b, List.of(VllmEvent.BlockStored.of(hashes, null, tokens, BLOCK_SIZE)), 0));
    }
    return workload;
  }

  private static VllmEventTranslator translator(KvIndexer index) {
    return new VllmEventTranslator(index, BLOCK_SIZE, new SimpleMeterRegistry());
  }

  private static double translate(List<VllmEventBatch> workload, int batches) throws Exception {
    try (KvIndexer index = KvIndexer.create()) {
      VllmEventTranslator translator = translator(index);
      long start = System.nanoTime();
      for (VllmEventBatch batch : workload) {
        translator.apply(RANK, batch);
      }
      index.flush().toCompletableFuture().get();
      return check(index, batches, start);
    }
  }

  private static double decodeAndTranslate(List<byte[]> payloads, int batches) throws Exception {
    try (KvIndexer index = KvIndexer.create()) {
      VllmEventTranslator translator = translator(index);
      long start = System.nanoTime();
      for (byte[] payload : payloads) {
        translator.apply(RANK, VllmEventCodec.decode(payload));
      }
      index.flush().toCompletableFuture().get();
      return check(index, batches, start);
    }
  }

  private static double overZmq(List<VllmEventBatch> workload, int batches) throws Exception {
    try (KvIndexer index = KvIndexer.create();
        ZmqEventPublisher publisher =
            ZmqEventPublisher.start(ZmqEventPublisher.Options.defaults("127.0.0.1"))) {
      VllmEventTranslator translator = translator(index);
      try (ZmqEventSubscriber subscriber =
          new ZmqEventSubscriber(
                  "tcp://127.0.0.1:" + publisher.port(),
                  "tcp://127.0.0.1:" + publisher.replayPort(),
                  "",
                  new TranslatingListener(RANK, index, translator),
                  Ticker.SYSTEM)
              .start()) {
        while (!"following".equals(subscriber.stats().state())) {
          Thread.sleep(10);
        }
        Thread.sleep(300); // past ZeroMQ's slow-joiner window
        long applied = index.stats().applied();
        long start = System.nanoTime();
        for (VllmEventBatch batch : workload) {
          publisher.publish(batch.events());
        }
        while (index.stats().applied() - applied < batches) {
          Thread.sleep(1);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (subscriber.stats().gaps() > 0) {
          System.err.printf(
              "note: %d gaps were replayed during the zmq run%n", subscriber.stats().gaps());
        }
        return seconds;
      }
    }
  }

  private static double check(KvIndexer index, int batches, long start) {
    double seconds = (System.nanoTime() - start) / 1e9;
    if (index.stats().applied() != batches || index.stats().rejected() != 0) {
      throw new IllegalStateException("expected " + batches + " applied events: " + index.stats());
    }
    return seconds;
  }
}
