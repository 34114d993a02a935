package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.ResponseFormat;
import io.kvrouter.preprocess.Delta;
import io.kvrouter.preprocess.Generation;
import io.kvrouter.protocol.FinishReason;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects a whole generation (after the echoed prompt, if asked for; its reasoning and tool calls
 * apart) and answers with one JSON response that includes usage.
 */
final class UnaryResponder extends Responder {
  private final ResponseFormat format;
  private final ResponseFormat.Header header;
  private final StringBuilder text;
  private final StringBuilder reasoning = new StringBuilder();
  private final List<Delta.ToolCall> toolCalls = new ArrayList<>(0);
  private final List<Delta.TokenLogprob> logprobs = new ArrayList<>(0);

  UnaryResponder(
      HttpServerResponse response,
      ResponseFormat format,
      ResponseFormat.Header header,
      Generation generation,
      FrontendMetrics.RequestTracker tracker,
      ErrorResponses errors) {
    super(response, generation, tracker, errors);
    this.format = format;
    this.header = header;
    this.text = new StringBuilder(generation.echo());
  }

  @Override
  public void onDelta(Delta delta, int newTokens) {
    tracker.tokens(newTokens);
    text.append(delta.content());
    reasoning.append(delta.reasoning());
    toolCalls.addAll(delta.toolCalls());
    logprobs.addAll(delta.logprobs());
  }

  @Override
  public void onFinish(FinishReason reason, int completionTokens) {
    if (!end()) {
      return;
    }
    response
        .putHeader("content-type", "application/json")
        .end(
            format
                .full(header, text.toString(), reasoning.toString(), toolCalls, logprobs,
                    ResponseFormat.finishReason(reason, !toolCalls.isEmpty()),
                    ResponseFormat.usage(generation.promptTokens(), completionTokens))
                .toBuffer());
    tracker.finish(true);
  }

  @Override
  void writeError(ErrorResponses.ApiError error) {
    ErrorResponses.send(response, error);
  }
}
