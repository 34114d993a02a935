package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.util.RawValue;
import io.kvrouter.transport.JsonEndpoint;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The worker's half of one call to a {@link JsonEndpoint}: the answer goes back as a stream of one
 * item, its JSON inlined as the item's data.
 *
 * <pre>
 * handshake, prologue, item {"data":{"data":ANSWER}}, complete_final, sentinel, [wait for FIN]
 * </pre>
 *
 * An endpoint that fails, or an answer too large for one frame, is an error item in its place.
 */
final class AnswerPublisher implements WorkerCallHome.Listener {
  private final JsonEndpoint endpoint;
  private final byte[] question;
  private final CallHomeFrames frames;
  private final WorkerCallHome callHome;

  AnswerPublisher(
      JsonEndpoint endpoint, byte[] question, CallHomeFrames frames, WorkerCallHome callHome) {
    this.endpoint = endpoint;
    this.question = question;
    this.frames = frames;
    this.callHome = callHome;
  }

  void start() {
    callHome.connect(this);
  }

  @Override
  public void connected() {
    callHome.write(frames.prologue(StreamPrologue.OK));
    CompletionStage<byte[]> answer;
    try {
      answer = endpoint.answer(question);
    } catch (RuntimeException e) {
      finish(null, e);
      return;
    }
    answer.whenComplete(
        (json, failure) -> callHome.context().runOnContext(v -> finish(json, failure)));
  }

  private void finish(byte[] json, Throwable failure) {
    if (callHome.finished()) {
      return;
    }
    if (failure == null) {
      try {
        callHome.write(frames.item(StreamItem.of(
            new RawValue(new String(json, StandardCharsets.UTF_8)))));
      } catch (TcpCodecException e) {
        failure = e;
      }
    }
    if (failure instanceof CompletionException wrapped && wrapped.getCause() != null) {
      failure = wrapped.getCause();
    }
    if (failure != null) {
      String message =
          failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
      callHome.write(frames.item(StreamItem.failure(message)));
    }
    callHome.write(frames.completeFinal());
    callHome.write(frames.control(ControlMessage.SENTINEL));
    callHome.finish();
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
