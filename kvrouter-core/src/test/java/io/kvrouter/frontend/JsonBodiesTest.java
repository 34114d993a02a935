package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.testing.Futures;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JsonBodiesTest {
  private final Vertx vertx = Vertx.vertx();
  private final JsonBodies bodies = new JsonBodies(1 << 20);

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  /** Where a read ran: the reader's thread, and the thread and context its result came back on. */
  private record Threads(String reader, String result, boolean sameContext) {}

  /** Reads {@code body} from an event loop, as the HTTP handlers do. */
  private Threads readFromAnEventLoop(Buffer body) throws Exception {
    Context eventLoop = vertx.getOrCreateContext();
    CompletableFuture<Threads> done = new CompletableFuture<>();
    eventLoop.runOnContext(
        v -> {
          String[] reader = new String[1];
          bodies
              .read(
                  eventLoop,
                  body,
                  json -> {
                    reader[0] = Thread.currentThread().getName();
                    return json;
                  })
              .onComplete(
                  ar ->
                      done.complete(
                          new Threads(
                              reader[0],
                              Thread.currentThread().getName(),
                              Vertx.currentContext() == eventLoop)));
        });
    return done.get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** A JSON object of exactly {@code bytes} bytes. */
  private static Buffer body(int bytes) {
    Buffer body = Buffer.buffer("{\"model\":\"" + "x".repeat(bytes - 12) + "\"}");
    assertThat(body.length()).isEqualTo(bytes);
    return body;
  }

  @Test
  void aSmallBody_isReadOnTheEventLoop() throws Exception {
    Threads threads = readFromAnEventLoop(body(1000));

    assertThat(threads.reader()).contains("eventloop");
    assertThat(threads.result()).isEqualTo(threads.reader());
    assertThat(threads.sameContext()).isTrue();
  }

  @Test
  void aLargeBody_isReadOnAWorkerThread_andItsResultComesBackToTheCallersEventLoop()
      throws Exception {
    Threads threads = readFromAnEventLoop(body(JsonBodies.INLINE_BYTES + 1));

    assertThat(threads.reader()).contains("worker").doesNotContain("eventloop");
    assertThat(threads.result()).contains("eventloop");
    assertThat(threads.sameContext()).isTrue();
  }

  @Test
  void whatTheReaderThrows_failsTheRead_insteadOfEscaping() throws Exception {
    Context context = vertx.getOrCreateContext();
    Function<JsonObject, Object> refusing =
        json -> {
          throw new InvalidRequestException("no", "model");
        };
    for (Buffer body : new Buffer[] {body(100), body(JsonBodies.INLINE_BYTES + 1)}) {
      Promise<Future<Object>> read = Promise.promise();
      context.runOnContext(v -> read.complete(bodies.read(context, body, refusing)));
      assertThat(Futures.failure(Futures.result(read.future())))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessage("no");
    }
  }

  @Test
  void bodiesThatAreNotAJsonObject_areInvalidRequests() {
    for (String text : new String[] {"", "{", "[1]", "null", "{} {}"}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> bodies.parse(Buffer.buffer(text)))
          .as(text)
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageStartingWith("The request body");
    }
  }
}
