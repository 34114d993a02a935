package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionTokenLogprob;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.WorkerProcess;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.assertj.core.data.Offset;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * Dynamo's NATS request plane and msgpack payloads end to end: a router with {@code --request-plane
 * nats} in front of worker processes serving {@code --request-plane nats} on a real nats-server,
 * with the OpenAI Java client; and msgpack workers over TCP.
 */
class NatsRequestPlaneIT {
  private static final String MODEL = "mock-model";

  private static WorkerProcess natsWorker(NatsServerProcess nats, String workerId)
      throws Exception {
    return WorkerProcess.start(
        MODEL,
        2,
        1,
        List.of(
            "--port",
            "0",
            "--request-plane",
            "nats",
            "--nats-server",
            nats.url(),
            "--worker-id",
            workerId));
  }

  private static RouterFixture natsRouter(NatsServerProcess nats, String... workers)
      throws Exception {
    Map<String, List<String>> flags = RouterFixture.workers(workers);
    flags.put("request-plane", List.of("nats"));
    flags.put("nats-server", List.of(nats.url()));
    return RouterFixture.start(flags);
  }

  private static ChatCompletionCreateParams chat(long maxTokens) {
    return ChatCompletionCreateParams.builder()
        .model(MODEL)
        .addUserMessage("Hello there")
        .maxCompletionTokens(maxTokens)
        .build();
  }

  /**
   * Copies of the requests sent on {@code subjects}: a plain subscriber beside the worker's gets
   * every message too, and does not reply.
   */
  private static final class Tap implements AutoCloseable {
    final Map<String, List<byte[]>> seen = new ConcurrentHashMap<>();
    private final Connection connection;

    Tap(NatsServerProcess nats, String... subjects) throws Exception {
      connection = Nats.connect(nats.url());
      Dispatcher dispatcher =
          connection.createDispatcher(
              m ->
                  seen.computeIfAbsent(m.getSubject(), s -> new CopyOnWriteArrayList<>())
                      .add(m.getData()));
      for (String subject : subjects) {
        dispatcher.subscribe(subject);
      }
      connection.flush(java.time.Duration.ofSeconds(10));
    }

    /** The requests on {@code subject} (health probes, which are empty, left out). */
    List<byte[]> requests(String subject) {
      List<byte[]> requests = new ArrayList<>();
      for (byte[] payload : seen.getOrDefault(subject, List.of())) {
        if (payload.length > 0) {
          requests.add(payload);
        }
      }
      return requests;
    }

    @Override
    public void close() throws InterruptedException {
      connection.close();
    }
  }

  /** The TwoPart envelope's header (the control message, JSON) and body. */
  private static String header(byte[] envelope) {
    ByteBuffer in = ByteBuffer.wrap(envelope);
    int headerLength = (int) in.getLong();
    return new String(envelope, 24, headerLength, StandardCharsets.UTF_8);
  }

  private static byte firstBodyByte(byte[] envelope) {
    ByteBuffer in = ByteBuffer.wrap(envelope);
    int headerLength = (int) in.getLong();
    return envelope[24 + headerLength];
  }

  @Test
  void chatAndCompletions_unaryAndStreamed_overNats_inJsonAndMsgpack() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.start();
        WorkerProcess json = natsWorker(nats, "30087");
        WorkerProcess msgpack = natsWorker(nats, "30088");
        Tap tap = new Tap(nats, "dynamo_backend.generate-7587", "dynamo_backend.generate-7588");
        RouterFixture router =
            natsRouter(nats, "id=json,instance=7587", "id=msgpack,instance=7588,codec=msgpack")) {
      OpenAIClient client = OpenAiRounds.client(router);
      // round robin: each of the two workers gets two of every four requests
      for (int round = 0; round < 2; round++) {
        OpenAiRounds.chatAndCompletions(client, MODEL);
      }
      // log probabilities are f64 on the wire: exact through msgpack too
      for (int i = 0; i < 2; i++) {
        ChatCompletion withLogprobs =
            client.chat().completions().create(chat(4).toBuilder().logprobs(true).build());
        for (ChatCompletionTokenLogprob token :
            withLogprobs.choices().get(0).logprobs().orElseThrow().content().orElseThrow()) {
          double expected = Math.log((token.token().equals(" ") ? 5.0 : 1.0) / 31);
          assertThat(token.logprob()).isCloseTo(expected, Offset.offset(1e-12));
        }
      }

      List<byte[]> toJson = tap.requests("dynamo_backend.generate-7587");
      List<byte[]> toMsgpack = tap.requests("dynamo_backend.generate-7588");
      assertThat(toJson).hasSize(5);
      assertThat(toMsgpack).hasSize(5);
      assertThat(toJson)
          .allSatisfy(
              envelope -> {
                assertThat(header(envelope)).doesNotContain("payload_codec");
                assertThat(firstBodyByte(envelope)).isEqualTo((byte) '{');
              });
      assertThat(toMsgpack)
          .allSatisfy(
              envelope -> {
                assertThat(header(envelope))
                    .startsWith("{\"id\":")
                    .contains("\"payload_codec\":\"msgpack\",\"connection_info\":");
                // PreprocessedRequest: a fixmap (9 fields, 10 with routing)
                assertThat(firstBodyByte(envelope) & 0xf0).isEqualTo(0x80);
              });
      assertThat(router.app.routerWorkers()).extracting(WorkerStatus::healthy).containsOnly(true);
      assertThat(router.detector.blockedThreads()).isEmpty();
    }
  }

  @Test
  void aKilledWorkersRequestsFailOver() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.start();
        WorkerProcess survivor = natsWorker(nats, "101");
        WorkerProcess victim = natsWorker(nats, "102");
        RouterFixture router =
            natsRouter(nats, "id=victim,instance=66", "id=survivor,instance=65,codec=msgpack")) {
      OpenAIClient client = OpenAiRounds.client(router);
      assertThat(client.chat().completions().create(chat(4)).choices()).hasSize(1);
      victim.close();

      for (int i = 0; i < 10; i++) {
        ChatCompletion completion = client.chat().completions().create(chat(4));
        assertThat(completion.choices().get(0).message().content().orElseThrow()).hasSize(4);
      }
      assertThat(router.app.routerWorkers())
          .extracting(WorkerStatus::id, WorkerStatus::healthy)
          .containsExactly(Tuple.tuple("victim", false), Tuple.tuple("survivor", true));
      assertThat(router.detector.blockedThreads()).isEmpty();
    }
  }

  @Test
  void msgpackWorkers_overTcp() throws Exception {
    try (WorkerProcess w1 = WorkerProcess.start(MODEL, 2, 1);
        WorkerProcess w2 = WorkerProcess.start(MODEL, 2, 1);
        RouterFixture router =
            RouterFixture.start(
                RouterFixture.workers(
                    w1.workerSpec("w1") + ",codec=msgpack",
                    w2.workerSpec("w2") + ",codec=msgpack"))) {
      OpenAIClient client = OpenAiRounds.client(router);
      for (int i = 0; i < 2; i++) {
        ChatCompletion unary =
            client.chat().completions().create(chat(6).toBuilder().logprobs(true).build());
        assertThat(unary.choices().get(0).message().content().orElseThrow()).hasSize(6);
        for (ChatCompletionTokenLogprob token :
            unary.choices().get(0).logprobs().orElseThrow().content().orElseThrow()) {
          double expected = Math.log((token.token().equals(" ") ? 5.0 : 1.0) / 31);
          assertThat(token.logprob()).isCloseTo(expected, Offset.offset(1e-12));
        }
        StringBuilder streamed = new StringBuilder();
        try (StreamResponse<ChatCompletionChunk> stream =
            client.chat().completions().createStreaming(chat(6))) {
          stream.stream()
              .forEach(
                  c ->
                      c.choices()
                          .forEach(choice -> choice.delta().content().ifPresent(streamed::append)));
        }
        assertThat(streamed).hasSize(6);
      }
      assertThat(router.app.routerWorkers()).extracting(WorkerStatus::healthy).containsOnly(true);
    }
  }
}
