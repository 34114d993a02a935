package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.OpenAiRequest;
import io.kvrouter.frontend.openai.ResponseFormat;
import io.kvrouter.preprocess.Delta;
import io.kvrouter.preprocess.Generation;
import io.kvrouter.protocol.FinishReason;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/**
 * Streams a generation as server-sent events: one {@code data: <chunk>} event per piece of text,
 * a last chunk with the finish reason, a usage chunk when {@code stream_options.include_usage} is
 * set, and {@code data: [DONE]}. An echoed prompt leads the first chunk. A slow client pauses the generation (and so the worker's stream)
 * until its socket drains.
 */
final class SseResponder extends Responder {
  private static final Buffer DONE = Buffer.buffer("data: [DONE]\n\n");

  private final ResponseFormat format;
  private final ResponseFormat.Header header;
  private final boolean includeUsage;
  private boolean first = true;
  private boolean calledTools;
  /** Characters of text sent so far: where the next tokens' text starts (completions logprobs). */
  private int textOffset;
  private String echo;
  /** Events written in the current event-loop task, sent as one write when it ends. */
  private Buffer pending;

  SseResponder(
      HttpServerResponse response,
      ResponseFormat format,
      ResponseFormat.Header header,
      OpenAiRequest request,
      Generation generation,
      FrontendMetrics.RequestTracker tracker,
      ErrorResponses errors) {
    super(response, generation, tracker, errors);
    this.format = format;
    this.header = header;
    this.includeUsage = request.includeUsage();
    this.echo = generation.echo();
  }

  @Override
  void start() {
    response
        .setChunked(true)
        .putHeader("content-type", "text/event-stream")
        .putHeader("cache-control", "no-cache");
    response.drainHandler(v -> generation.resume());
    super.start();
  }

  @Override
  public void onDelta(Delta delta, int newTokens) {
    tracker.tokens(newTokens);
    if (ended() || (delta.isEmpty() && !first)) {
      return;
    }
    calledTools |= !delta.toolCalls().isEmpty();
    Delta withEcho =
        new Delta(echo + delta.content(), delta.reasoning(), delta.toolCalls(), delta.logprobs());
    write(format.chunk(header, withEcho, first, null, textOffset + echo.length()));
    textOffset += withEcho.content().length();
    first = false;
    echo = "";
    if (response.writeQueueFull()) {
      generation.pause();
    }
  }

  @Override
  public void onFinish(FinishReason reason, int completionTokens) {
    if (!end()) {
      return;
    }
    write(format.chunk(header, Delta.content(echo), first,
        ResponseFormat.finishReason(reason, calledTools), textOffset));
    if (includeUsage) {
      write(format.usageChunk(
          header, ResponseFormat.usage(generation.promptTokens(), completionTokens)));
    }
    response.end(takePending().appendBuffer(DONE));
    tracker.finish(true);
  }

  @Override
  void writeError(ErrorResponses.ApiError error) {
    if (!response.headWritten()) {
      ErrorResponses.send(response, error);
      return;
    }
    // Mid-stream: OpenAI SDKs raise an API error for a data event that carries "error".
    write(error.body());
    response.end(takePending());
  }

  /**
   * Queues one event. Outputs that arrive together (one read of the worker's stream) become one
   * write to the client instead of one write per token.
   */
  private void write(JsonObject chunk) {
    Context context = Vertx.currentContext();
    if (pending == null) {
      pending = Buffer.buffer(512);
      if (context != null) {
        context.runOnContext(v -> flush());
      }
    }
    pending.appendString("data: ").appendBuffer(chunk.toBuffer()).appendString("\n\n");
    if (context == null) {
      flush();
    }
  }

  private void flush() {
    if (pending != null && !response.ended()) {
      response.write(takePending());
    }
  }

  private Buffer takePending() {
    Buffer events = pending == null ? Buffer.buffer() : pending;
    pending = null;
    return events;
  }
}
