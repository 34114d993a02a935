package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.sim.kv.KvCacheSnapshot;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code --router-mode kv} following the workers' own KV cache events (vLLM's ZMQ format): after
 * each scenario the router's index holds exactly the blocks each simulated worker caches, compared
 * block by block (engine hash and the router's hash of its tokens).
 */
class KvEventsIT {
  private static final String MODEL = "mock-model";
  private static final int BLOCK_SIZE = 16;
  /** Small caches, so the workload evicts. */
  private static final int KV_BLOCKS = 48;

  private static final BlockHasher HASHER = BlockHasher.of(BLOCK_SIZE);

  /** One block as both sides name it: the engine's hash and the router's hash of its tokens. */
  private record Block(long engineHash, long tokensHash) {}

  /** What the router's index holds per worker, from a dump of it. */
  private static Map<String, Set<Block>> routerBlocks(RouterFixture router) throws Exception {
    List<RouterEvent> dump =
        router.app.dumpKvIndex().orElseThrow().toCompletableFuture().get(10, TimeUnit.SECONDS);
    Map<String, Map<Long, Block>> byWorker = new HashMap<>();
    for (RouterEvent event : dump) {
      Map<Long, Block> blocks =
          byWorker.computeIfAbsent(event.worker().workerId(), w -> new HashMap<>());
      if (event.event() instanceof KvCacheEvent.Stored stored) {
        stored.blocks().forEach(b -> blocks.put(b.blockHash(), new Block(b.blockHash(), b.tokensHash())));
      } else if (event.event() instanceof KvCacheEvent.Removed removed) {
        removed.blockHashes().forEach(blocks::remove);
      } else {
        blocks.clear();
      }
    }
    Map<String, Set<Block>> result = new HashMap<>();
    byWorker.forEach((worker, blocks) -> result.put(worker, new HashSet<>(blocks.values())));
    return result;
  }

  private static Set<Block> blocksOf(KvCacheSnapshot snapshot) {
    Set<Block> blocks = new HashSet<>();
    for (KvCacheSnapshot.CachedBlock block : snapshot.blocks()) {
      blocks.add(new Block(block.hash(), HASHER.localHash(block.tokens(), 0)));
    }
    return blocks;
  }

  private static Set<Block> blocksOf(JsonObject state) {
    Set<Block> blocks = new HashSet<>();
    JsonArray cached = state.getJsonArray("blocks");
    for (int i = 0; i < cached.size(); i++) {
      JsonObject block = cached.getJsonObject(i);
      JsonArray tokens = block.getJsonArray("tokens");
      int[] ids = new int[tokens.size()];
      for (int t = 0; t < ids.length; t++) {
        ids[t] = tokens.getInteger(t);
      }
      blocks.add(new Block(Long.parseUnsignedLong(block.getString("hash")), HASHER.localHash(ids, 0)));
    }
    return blocks;
  }

  /** Prompts from a few shared prefixes with distinct tails, so blocks are reused and evicted. */
  private static List<String> workload(Random random, int requests) {
    List<String> prefixes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      prefixes.add(letters(random, 160));
    }
    List<String> prompts = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      prompts.add(prefixes.get(random.nextInt(prefixes.size())) + letters(random, 40 + random.nextInt(200)));
    }
    return prompts;
  }

  private static String letters(Random random, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  private static void send(RouterFixture router, List<String> prompts) throws Exception {
    for (String prompt : prompts) {
      Http.Response response =
          Http.postJson(
              router.baseUrl + "/v1/completions",
              new JsonObject().put("model", MODEL).put("prompt", prompt).put("max_tokens", 20));
      assertThat(response.status()).as(response.body()).isEqualTo(200);
    }
  }

  private static Map<String, List<String>> kvFlags() {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("router-mode", List.of("kv"));
    flags.put("kv-cache-block-size", List.of(String.valueOf(BLOCK_SIZE)));
    return flags;
  }

  @Test
  void inProcessWorkers_theIndexMatchesEveryCacheThroughEvictions() throws Exception {
    Map<String, List<String>> flags = kvFlags();
    flags.put("mock-workers", List.of("2"));
    flags.put("mock-kv-blocks", List.of(String.valueOf(KV_BLOCKS)));
    flags.put("mock-ttft-ms", List.of("0"));
    flags.put("mock-itl-ms", List.of("0"));
    try (RouterFixture router = RouterFixture.start(flags)) {
      send(router, workload(new Random(1), 60));

      Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                Map<String, Set<Block>> index = routerBlocks(router);
                for (int i = 0; i < 2; i++) {
                  Set<Block> cached = blocksOf(router.app.mockEngines().get(i).kvCache().snapshot());
                  assertThat(cached).as("mock-" + (i + 1) + " caches something").isNotEmpty();
                  assertThat(index.getOrDefault("mock-" + (i + 1), Set.of()))
                      .as("mock-" + (i + 1))
                      .isEqualTo(cached);
                }
              });
      String metrics = Http.get(router.baseUrl + "/metrics").body();
      assertThat(metrics.lines())
          .as("evictions reached the index")
          .anyMatch(
              l -> l.startsWith("dynamo_kvrouter_kv_cache_events_applied_total{event_type=\"removed\",status=\"ok\"}")
                  && !l.endsWith(" 0.0"));
      assertThat(Prometheus.sum(metrics, "kvrouter_router_overlap_blocks_sum"))
          .as("requests were routed to cached prefixes")
          .isPositive();
    }
  }

  /** A worker process publishing events with 5% of batches lost on the wire. */
  private static WorkerProcess lossyWorker(List<String> ports) throws Exception {
    List<String> options = new ArrayList<>(ports);
    options.addAll(
        List.of(
            "--block-size", String.valueOf(BLOCK_SIZE),
            "--num-gpu-blocks", String.valueOf(KV_BLOCKS),
            "--kv-events-drop-rate", "0.05"));
    return WorkerProcess.start(MODEL, 0, 0, options);
  }

  private static void awaitConverged(RouterFixture router, Map<String, WorkerProcess> workers) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              Map<String, Set<Block>> index = routerBlocks(router);
              for (Map.Entry<String, WorkerProcess> worker : workers.entrySet()) {
                Set<Block> cached = blocksOf(worker.getValue().kvState());
                assertThat(cached).as(worker.getKey() + " caches something").isNotEmpty();
                assertThat(index.getOrDefault(worker.getKey(), Set.of()))
                    .as(worker.getKey())
                    .isEqualTo(cached);
              }
            });
  }

  @Test
  void workerProcesses_lossyEvents_routerRestart_workerRestart() throws Exception {
    WorkerProcess w1 =
        lossyWorker(List.of("--port", "0", "--kv-events-port", "0", "--kv-replay-port", "0"));
    WorkerProcess w2 =
        lossyWorker(List.of("--port", "0", "--kv-events-port", "0", "--kv-replay-port", "0"));
    Map<String, WorkerProcess> workers = new HashMap<>(Map.of("w1", w1, "w2", w2));
    Random random = new Random(2);
    try {
      Map<String, List<String>> flags = kvFlags();
      flags.put("worker", List.of(w1.workerSpec("w1"), w2.workerSpec("w2")));

      // (b) 5% of event batches lost: gaps are replayed
      try (RouterFixture router = RouterFixture.start(flags)) {
        send(router, workload(random, 60));
        awaitConverged(router, workers);
        String metrics = Http.get(router.baseUrl + "/metrics").body();
        assertThat(Prometheus.sum(metrics, "kvrouter_kv_event_gaps_total"))
            .as("lost batches were noticed")
            .isPositive();
        assertThat(Prometheus.sum(metrics, "kvrouter_kv_event_replayed_batches_total"))
            .as("and replayed")
            .isPositive();
        JsonArray statuses =
            Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
        for (int i = 0; i < statuses.size(); i++) {
          JsonObject feed = statuses.getJsonObject(i).getJsonObject("kv_events");
          assertThat(feed.getString("state")).isEqualTo("following");
          assertThat(feed.getLong("batches")).isPositive();
          assertThat(feed.getLong("ms_since_last_batch")).isNotNegative();
        }
      }

      // (c) a new router rebuilds every worker's state from the replay buffers
      try (RouterFixture router = RouterFixture.start(flags)) {
        awaitConverged(router, workers);
        send(router, workload(random, 30));
        awaitConverged(router, workers);

        // (d) a worker restarts on the same ports with an empty cache and counts from 0 again
        List<String> samePorts =
            List.of(
                "--port", String.valueOf(w1.port()),
                "--kv-events-port", String.valueOf(w1.kvEventsPort()),
                "--kv-replay-port", String.valueOf(w1.kvReplayPort()));
        w1.close();
        w1 = lossyWorker(samePorts);
        workers.put("w1", w1);
        WorkerProcess restarted = w1;
        Awaitility.await()
            .atMost(Duration.ofSeconds(15))
            .until(
                () ->
                    Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers")
                        .getJsonObject(0).getBoolean("healthy"));
        send(router, workload(random, 40));
        assertThat(restarted.metric("dynamo_component_requests_total"))
            .as("the restarted worker served requests")
            .isPositive();
        awaitConverged(router, workers);
        String metrics = Http.get(router.baseUrl + "/metrics").body();
        assertThat(
                metrics.lines()
                    .filter(l -> l.startsWith("kvrouter_kv_event_resets_total{")
                        && l.contains("worker_id=\"w1\""))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                    .sum())
            .as("w1's restart reset its rank: once at start, once after the restart")
            .isGreaterThanOrEqualTo(2);
      }
    } finally {
      w1.close();
      w2.close();
    }
  }
}
