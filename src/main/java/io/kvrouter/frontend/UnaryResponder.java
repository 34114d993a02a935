package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.ResponseFormat;
import io.kvrouter.preprocess.Generation;
import io.kvrouter.protocol.FinishReason;
import io.vertx.core.http.HttpServerResponse;

/**
 * Collects a whole generation (after the echoed prompt, if asked for) and answers with one JSON
 * response that includes usage.
 */
final class UnaryResponder extends Responder {
  private final ResponseFormat format;
  private final ResponseFormat.Header header;
  private final StringBuilder text;

  UnaryResponder(
      HttpServerResponse response,
      ResponseFormat format,
      ResponseFormat.Header header,
      String echo,
      Generation generation,
      FrontendMetrics.RequestTracker tracker,
      ErrorResponses errors) {
    super(response, generation, tracker, errors);
    this.format = format;
    this.header = header;
    this.text = new StringBuilder(echo);
  }

  @Override
  public void onDelta(String delta, int newTokens) {
    tracker.tokens(newTokens);
    text.append(delta);
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
                .full(header, text.toString(), reason.openAiName(),
                    ResponseFormat.usage(generation.promptTokens(), completionTokens))
                .toBuffer());
    tracker.finish(true);
  }

  @Override
  void writeError(ErrorResponses.ApiError error) {
    ErrorResponses.send(response, error);
  }
}
