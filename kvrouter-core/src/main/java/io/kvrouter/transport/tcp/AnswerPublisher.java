package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.transport.JsonEndpoint;
import io.vertx.core.buffer.Buffer;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's half of one call to a {@link JsonEndpoint}. As a Dynamo engine that computes its
 * answer in {@code generate()} and returns a stream of it, the prologue follows the answer: a good
 * answer goes back as a stream of one item, its JSON as it is; an endpoint that fails (or an answer
 * too large for a frame) sends an error prologue with the reason instead.
 *
 * <pre>
 * handshake, [answer computed], prologue {"error":null}, {"data":ANSWER,"complete_final":false},
 *     {"complete_final":true}, sentinel                        or
 * handshake, [endpoint failed], prologue {"error":"reason"}
 * </pre>
 *
 * The answer's frame is built on the thread that completes it (a tree dump can be megabytes), and
 * only written on the socket's event loop.
 */
final class AnswerPublisher implements ResponseSink.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(AnswerPublisher.class);

  private final JsonEndpoint endpoint;
  private final byte[] question;
  private final PayloadCodec codec;
  private final ResponseSink callHome;
  private final int maxMessageSize;

  /**
   * @param question the question's JSON
   * @param codec how the answer's items are encoded: the request's payload codec
   */
  AnswerPublisher(
      JsonEndpoint endpoint,
      byte[] question,
      PayloadCodec codec,
      ResponseSink callHome,
      int maxMessageSize) {
    this.endpoint = endpoint;
    this.question = question;
    this.codec = codec;
    this.callHome = callHome;
    this.maxMessageSize = maxMessageSize;
  }

  void start() {
    callHome.connect(this);
  }

  @Override
  public void connected() {
    CompletionStage<byte[]> answer;
    try {
      answer = endpoint.answer(question);
    } catch (RuntimeException e) {
      refuse(e);
      return;
    }
    answer.whenComplete(
        (json, failure) -> {
          Buffer frame = null;
          Throwable problem = failure;
          if (problem == null) {
            try {
              if (json == null) {
                throw new IllegalStateException("the endpoint answered nothing");
              }
              frame = ResponseEnvelope.answer(json, codec);
              // a TwoPart prefix and a mux header are both 24 bytes
              long size = (long) TwoPartMessage.PREFIX_BYTES + frame.length();
              if (size > maxMessageSize) {
                throw new TcpCodecException(
                    "an answer frame of "
                        + size
                        + " bytes exceeds the limit of "
                        + maxMessageSize
                        + " bytes");
              }
            } catch (RuntimeException e) {
              problem = e;
            }
          }
          Buffer built = frame;
          Throwable refused = problem;
          callHome
              .context()
              .runOnContext(
                  v -> {
                    if (refused != null) {
                      refuse(refused);
                    } else {
                      send(built);
                    }
                  });
        });
  }

  private void send(Buffer answer) {
    if (callHome.finished()) {
      return;
    }
    callHome.prologue(StreamPrologue.OK);
    callHome.data(answer);
    callHome.data(ResponseEnvelope.last(codec));
    callHome.end();
  }

  private void refuse(Throwable failure) {
    if (callHome.finished()) {
      return;
    }
    Throwable cause =
        failure instanceof CompletionException wrapped && wrapped.getCause() != null
            ? wrapped.getCause()
            : failure;
    String message =
        cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    LOG.warn("an endpoint failed to answer: {}", message);
    callHome.prologue(new StreamPrologue(message));
  }

  @Override
  public void cancelled() {
    // the answer is computed anyway; nothing is written once the frontend has gone
  }

  @Override
  public void drained() {
    // one item: nothing to pace
  }
}
