package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.JsonBytes;
import io.kvrouter.frontend.openai.ResponseFormat;
import io.kvrouter.preprocess.Delta;
import io.kvrouter.preprocess.Generation;
import io.kvrouter.protocol.FinishReason;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects whole generations, one per choice (after the echoed prompt, if asked for; reasoning and
 * tool calls apart) and answers with one JSON response that includes usage.
 */
final class UnaryResponder extends Responder {
  private final ResponseFormat format;
  private final ResponseFormat.Header header;
  private final List<Collected> collected = new ArrayList<>();
  private int completionTokens;

  /** One choice's output so far. */
  private static final class Collected {
    final StringBuilder text;
    final StringBuilder reasoning = new StringBuilder();
    final List<Delta.ToolCall> toolCalls = new ArrayList<>(0);
    final List<Delta.TokenLogprob> logprobs = new ArrayList<>(0);
    String finishReason;

    Collected(String echo) {
      this.text = new StringBuilder(echo);
    }
  }

  UnaryResponder(
      HttpServerResponse response,
      ResponseFormat format,
      ResponseFormat.Header header,
      List<Generation> choices,
      FrontendMetrics.RequestTracker tracker,
      ErrorResponses errors,
      InFlightResponses inFlight,
      RequestIds.RequestId id) {
    super(response, choices, tracker, errors, inFlight, id);
    this.format = format;
    this.header = header;
    choices.forEach(g -> collected.add(new Collected(g.echo())));
  }

  @Override
  void onDelta(int index, Delta delta, int newTokens) {
    tracker.tokens(newTokens);
    Collected c = collected.get(index);
    c.text.append(delta.content());
    c.reasoning.append(delta.reasoning());
    c.toolCalls.addAll(delta.toolCalls());
    c.logprobs.addAll(delta.logprobs());
  }

  @Override
  void onChoiceFinish(int index, FinishReason reason, int tokens) {
    Collected c = collected.get(index);
    c.finishReason = ResponseFormat.finishReason(reason, !c.toolCalls.isEmpty());
    completionTokens += tokens;
  }

  @Override
  void onAllFinished() {
    List<ResponseFormat.Choice> choices = new ArrayList<>(collected.size());
    for (Collected c : collected) {
      choices.add(
          new ResponseFormat.Choice(
              c.text.toString(), c.reasoning.toString(), c.toolCalls, c.logprobs, c.finishReason));
    }
    response
        .putHeader("content-type", "application/json")
        .end(
            JsonBytes.of(
                json -> format.full(json, header, choices, promptTokens(), completionTokens)));
    tracker.finish(true);
  }

  @Override
  void writeError(ErrorResponses.ApiError error) {
    ErrorResponses.send(response, error);
  }
}
