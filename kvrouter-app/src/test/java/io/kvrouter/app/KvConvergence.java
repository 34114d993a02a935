package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.WorkerProcess;
import io.kvrouter.worker.kv.KvCacheSnapshot;
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
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the event-plane ITs share: a workload that reuses and evicts KV blocks, and the check that a
 * router's index holds exactly each worker's cached blocks (zero differing blocks).
 */
final class KvConvergence {
  static final String MODEL = "mock-model";
  static final int BLOCK_SIZE = 16;

  /** Small caches, so the workload evicts. */
  static final int KV_BLOCKS = 48;

  private static final BlockHasher HASHER = BlockHasher.of(BLOCK_SIZE);

  private KvConvergence() {}

  /** One block as both sides name it: the engine's hash and the router's hash of its tokens. */
  record Block(long engineHash, long tokensHash) {}

  /** {@code --router-mode kv} with the block size of the workers here. */
  static Map<String, List<String>> kvFlags() {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("router-mode", List.of("kv"));
    flags.put("kv-cache-block-size", List.of(String.valueOf(BLOCK_SIZE)));
    return flags;
  }

  /** What the router's index holds per worker rank, from a dump of it. */
  static Map<WorkerRank, Set<Block>> routerBlocksByRank(RouterFixture router) throws Exception {
    List<RouterEvent> dump =
        router.app.dumpKvIndex().orElseThrow().toCompletableFuture().get(10, TimeUnit.SECONDS);
    Map<WorkerRank, Map<Long, Block>> byWorker = new HashMap<>();
    for (RouterEvent event : dump) {
      Map<Long, Block> blocks = byWorker.computeIfAbsent(event.worker(), w -> new HashMap<>());
      if (event.event() instanceof KvCacheEvent.Stored stored) {
        stored
            .blocks()
            .forEach(b -> blocks.put(b.blockHash(), new Block(b.blockHash(), b.tokensHash())));
      } else if (event.event() instanceof KvCacheEvent.Removed removed) {
        removed.blockHashes().forEach(blocks::remove);
      } else {
        blocks.clear();
      }
    }
    Map<WorkerRank, Set<Block>> result = new HashMap<>();
    byWorker.forEach((worker, blocks) -> result.put(worker, new HashSet<>(blocks.values())));
    return result;
  }

  static Set<Block> blocksOf(KvCacheSnapshot snapshot) {
    Set<Block> blocks = new HashSet<>();
    for (KvCacheSnapshot.CachedBlock block : snapshot.blocks()) {
      blocks.add(new Block(block.hash(), HASHER.localHash(block.tokens(), 0)));
    }
    return blocks;
  }

  /** The blocks of a worker's {@code /kv/state}. */
  static Set<Block> blocksOf(JsonObject state) {
    Set<Block> blocks = new HashSet<>();
    JsonArray cached = state.getJsonArray("blocks");
    for (int i = 0; i < cached.size(); i++) {
      JsonObject block = cached.getJsonObject(i);
      JsonArray tokens = block.getJsonArray("tokens");
      int[] ids = new int[tokens.size()];
      for (int t = 0; t < ids.length; t++) {
        ids[t] = tokens.getInteger(t);
      }
      blocks.add(
          new Block(Long.parseUnsignedLong(block.getString("hash")), HASHER.localHash(ids, 0)));
    }
    return blocks;
  }

  /** Prompts from a few shared prefixes with distinct tails, so blocks are reused and evicted. */
  static List<String> workload(Random random, int requests) {
    List<String> prefixes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      prefixes.add(letters(random, 160));
    }
    List<String> prompts = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      prompts.add(
          prefixes.get(random.nextInt(prefixes.size()))
              + letters(random, 40 + random.nextInt(200)));
    }
    return prompts;
  }

  static String letters(Random random, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  /** Sends each prompt as a completion; each must be answered with 200. */
  static void send(RouterFixture router, List<String> prompts) throws Exception {
    for (String prompt : prompts) {
      Http.Response response =
          Http.postJson(
              router.baseUrl + "/v1/completions",
              new JsonObject().put("model", MODEL).put("prompt", prompt).put("max_tokens", 20));
      assertThat(response.status()).as(response.body()).isEqualTo(200);
    }
  }

  /**
   * Sends workloads of 30 prompts until every worker has served one more request than before: a
   * Dynamo v1.5 worker is asked for its state only once a router has heard it publish, and the KV
   * router may send a short workload to one worker only.
   */
  static void sendUntilEveryWorkerServed(
      RouterFixture router, Map<String, WorkerProcess> workers, Random random) throws Exception {
    Map<String, Double> before = new HashMap<>();
    for (Map.Entry<String, WorkerProcess> w : workers.entrySet()) {
      before.put(w.getKey(), w.getValue().metric("dynamo_component_requests_total"));
    }
    for (int round = 0; round < 20; round++) {
      send(router, workload(random, 30));
      boolean all = true;
      for (Map.Entry<String, WorkerProcess> w : workers.entrySet()) {
        all &= w.getValue().metric("dynamo_component_requests_total") > before.get(w.getKey());
      }
      if (all) {
        return;
      }
    }
    throw new AssertionError("600 requests and a worker served none of them: " + workers.keySet());
  }

  /** Where a rank's true cache is read from, for {@link #awaitIndexEquals}. */
  interface Cache {
    Set<Block> blocks() throws Exception;
  }

  /**
   * Waits until the index holds exactly what each rank's cache holds, and each cache holds
   * something (so the comparison says something).
   */
  static void awaitIndexEquals(RouterFixture router, Map<WorkerRank, Cache> caches) {
    // a cap, not a window: recovery through a rank that answers no replay takes three 3 s
    // attempts, and a busy machine stretches each
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Map<WorkerRank, Set<Block>> index = routerBlocksByRank(router);
              for (Map.Entry<WorkerRank, Cache> rank : caches.entrySet()) {
                Set<Block> cached = rank.getValue().blocks();
                assertThat(cached).as(rank.getKey() + " caches something").isNotEmpty();
                assertThat(index.getOrDefault(rank.getKey(), Set.of()))
                    .as(rank.getKey().toString())
                    .isEqualTo(cached);
              }
            });
  }

  /** Waits until the index holds exactly each worker's cached blocks, by worker id. */
  static void awaitConverged(RouterFixture router, Map<String, WorkerProcess> workers) {
    awaitConvergedRanks(router, workers, 1);
  }

  /**
   * Waits until the index holds exactly each data-parallel rank's cached blocks, for {@code dpSize}
   * ranks of every worker, each of which must cache something.
   */
  static void awaitConvergedRanks(
      RouterFixture router, Map<String, WorkerProcess> workers, int dpSize) {
    Map<WorkerRank, Cache> caches = new HashMap<>();
    workers.forEach(
        (id, worker) -> {
          for (int dp = 0; dp < dpSize; dp++) {
            int rank = dp;
            caches.put(new WorkerRank(id, dp), () -> blocksOf(worker.kvState(rank)));
          }
        });
    try {
      awaitIndexEquals(router, caches);
    } catch (ConditionTimeoutException e) {
      StringBuilder logs = new StringBuilder();
      workers.forEach(
          (id, worker) ->
              logs.append("\n--- worker ")
                  .append(id)
                  .append(":\n")
                  .append(worker.recentOutput(40)));
      throw new AssertionError(e.getMessage() + "\nwhat the workers printed last:" + logs, e);
    }
  }

  /** Whether the {@code index}th worker of {@code /router/workers} is healthy. */
  static boolean healthy(RouterFixture router, int index) throws Exception {
    return Http.get(router.baseUrl + "/router/workers")
        .json()
        .getJsonArray("workers")
        .getJsonObject(index)
        .getBoolean("healthy");
  }

  /** The sum of {@code name}'s samples for worker {@code workerId} in a Prometheus scrape. */
  static double perWorker(String metrics, String name, String workerId) {
    return metrics
        .lines()
        .filter(l -> l.startsWith(name + "{") && l.contains("worker_id=\"" + workerId + "\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  /**
   * Waits until {@code /router/workers} shows every worker's events followed and its load report
   * received, with the simulated workers' KV capacity.
   */
  static void awaitFollowingWithReportedLoad(RouterFixture router) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonArray statuses =
                  Http.get(router.baseUrl + "/router/workers").json().getJsonArray("workers");
              for (int i = 0; i < statuses.size(); i++) {
                JsonObject status = statuses.getJsonObject(i);
                assertThat(status.getJsonObject("kv_events").getString("state"))
                    .isEqualTo("following");
                assertThat(status.getJsonObject("reported_load"))
                    .as("the worker's load report")
                    .isNotNull();
                assertThat(status.getJsonObject("reported_load").getLong("kv_total_blocks"))
                    .isEqualTo(KV_BLOCKS);
              }
            });
  }
}
