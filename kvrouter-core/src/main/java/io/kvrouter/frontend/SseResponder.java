package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.JsonBytes;
import io.kvrouter.frontend.openai.OpenAiRequest;
import io.kvrouter.frontend.openai.ResponseFormat;
import io.kvrouter.preprocess.Delta;
import io.kvrouter.preprocess.Generation;
import io.kvrouter.protocol.FinishReason;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams a generation as server-sent events: one {@code data: <chunk>} event per piece of text, a
 * last chunk with the finish reason, a usage chunk when {@code stream_options.include_usage} is
 * set, and {@code data: [DONE]}; an error after the first event is an event carrying {@code
 * "error"}, also followed by {@code data: [DONE]} unless the request was cancelled or cut by
 * shutdown; with several choices (completions with several prompts) each chunk names its choice's
 * index and each choice gets its own last chunk. An echoed prompt leads its choice's first chunk. A
 * slow client pauses the generation (and so the worker's stream) until its socket drains.
 */
final class SseResponder extends Responder {
  private static final Buffer DONE = Buffer.buffer("data: [DONE]\n\n");
  private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] END_OF_EVENT = {'\n', '\n'};

  /** The status of a request the client cancelled: nobody reads the rest of its stream. */
  private static final int CLIENT_CLOSED = 499;

  /** The code of a stream that graceful shutdown cut off. */
  private static final String SHUTTING_DOWN = "router_shutting_down";

  private final ResponseFormat format;
  private final ResponseFormat.Header header;
  private final boolean includeUsage;
  private final List<Stream> streams = new ArrayList<>();
  private int completionTokens;

  /** Events written in the current event-loop task, sent as one write when it ends. */
  private Buffer pending;

  /** What one choice has sent so far. */
  private static final class Stream {
    boolean first = true;
    boolean calledTools;

    /** Characters of text sent: where the next tokens' text starts (completions logprobs). */
    int textOffset;

    /** The echoed prompt, until it leads the choice's first chunk. */
    String echo;

    Stream(String echo) {
      this.echo = echo;
    }
  }

  SseResponder(
      HttpServerResponse response,
      ResponseFormat format,
      ResponseFormat.Header header,
      OpenAiRequest request,
      List<Generation> choices,
      FrontendMetrics.RequestTracker tracker,
      ErrorResponses errors,
      InFlightResponses inFlight,
      RequestIds.RequestId id) {
    super(response, choices, tracker, errors, inFlight, id);
    this.format = format;
    this.header = header;
    this.includeUsage = request.includeUsage();
    choices.forEach(g -> streams.add(new Stream(g.echo())));
  }

  @Override
  void start() {
    response
        .setChunked(true)
        .putHeader("content-type", "text/event-stream")
        .putHeader("cache-control", "no-cache");
    response.drainHandler(v -> choices.forEach(Generation::resume));
    super.start();
  }

  @Override
  void onDelta(int index, Delta delta, int newTokens) {
    tracker.tokens(newTokens);
    Stream stream = streams.get(index);
    if (ended() || (delta.isEmpty() && !stream.first)) {
      return;
    }
    stream.calledTools |= !delta.toolCalls().isEmpty();
    Delta withEcho =
        stream.echo.isEmpty()
            ? delta
            : new Delta(
                stream.echo + delta.content(),
                delta.reasoning(),
                delta.toolCalls(),
                delta.logprobs());
    boolean first = stream.first;
    int textOffset = stream.textOffset + stream.echo.length();
    write(json -> format.chunk(json, header, index, withEcho, first, null, textOffset));
    stream.textOffset += withEcho.content().length();
    stream.first = false;
    stream.echo = "";
    if (response.writeQueueFull()) {
      choices.forEach(Generation::pause);
    }
  }

  @Override
  void onChoiceFinish(int index, FinishReason reason, int tokens) {
    Stream stream = streams.get(index);
    completionTokens += tokens;
    Delta echo = Delta.content(stream.echo);
    String finish = ResponseFormat.finishReason(reason, stream.calledTools);
    write(json -> format.chunk(json, header, index, echo, stream.first, finish, stream.textOffset));
  }

  @Override
  void onAllFinished() {
    if (includeUsage) {
      write(json -> format.usageChunk(json, header, promptTokens(), completionTokens));
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
    // Mid-stream: OpenAI SDKs raise an API error for a data event that carries "error". As in
    // Dynamo's frontend, the stream then still ends with [DONE], unless the request itself was
    // stopped (the client went away, or shutdown cut it), which ends Dynamo's stream at once.
    Buffer last = takePending().appendBytes(DATA);
    last.appendBuffer(error.body().toBuffer()).appendBytes(END_OF_EVENT);
    response.end(stopped(error) ? last : last.appendBuffer(DONE));
  }

  /** Whether {@code error} ends the request itself (cancelled, or cut by shutdown). */
  private static boolean stopped(ErrorResponses.ApiError error) {
    return error.status() == CLIENT_CLOSED || SHUTTING_DOWN.equals(error.code());
  }

  /**
   * Queues one event. Outputs that arrive together (one read of the worker's stream) become one
   * write to the client instead of one write per token.
   */
  private void write(JsonBytes.Document chunk) {
    Context context = Vertx.currentContext();
    if (pending == null) {
      pending = Buffer.buffer(512);
      if (context != null) {
        context.runOnContext(v -> flush());
      }
    }
    // the event is written whole or not at all: a document that fails leaves nothing half-queued
    Buffer event = JsonBytes.append(Buffer.buffer(256).appendBytes(DATA), chunk);
    pending.appendBuffer(event).appendBytes(END_OF_EVENT);
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
