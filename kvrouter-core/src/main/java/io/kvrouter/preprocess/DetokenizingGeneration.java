package io.kvrouter.preprocess;

import io.kvrouter.preprocess.parse.OutputParser;
import io.kvrouter.preprocess.tokenizer.IncrementalDetokenizer;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerStreamException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a worker's token stream into text: incremental detokenization, stop strings (kept in the
 * text with {@code include_stop_str_in_output}), stop token ids (both only after {@code
 * min_tokens}, as vLLM does), {@code max_tokens}, and the response's reasoning and tool-call
 * parsing ({@link DeltaAssembler}). The worker normally enforces the last two itself; checking them
 * here too means a worker that overshoots cannot make the client see more than it asked for. When
 * the router ends a generation early (a stop string matched), it cancels the request at the worker.
 */
final class DetokenizingGeneration implements Generation, ResponseStream.Subscriber {
  private final ResponseStream stream;
  private final Tokenizer tokenizer;
  private final IncrementalDetokenizer detokenizer;
  private final StopStringMatcher stopStrings;
  private final List<Integer> stopTokenIds;
  private final List<Integer> eosTokenIds;
  private final int maxTokens;
  private final int minTokens;
  private final int promptTokens;
  private final String echo;
  private final boolean includeStopString;
  private final DeltaAssembler deltas;

  private Listener listener;
  private int completionTokens;
  private boolean finished;

  /**
   * @param maxTokens the most tokens to let through: the request's {@code max_tokens}, or what the
   *     context leaves its prompt ({@link SequenceLimit}); {@link Integer#MAX_VALUE} for no limit
   * @param eosTokenIds the model's end-of-sequence ids: one the worker sends ends the generation
   *     and is left out of the text (unless the request ignores eos)
   * @param echo the prompt's text to return before the generated text, or empty
   * @param skipSpecialTokens special tokens are left out of the text
   * @param parser reads reasoning and tool calls out of the text, or null when it is all content
   */
  DetokenizingGeneration(
      ResponseStream stream,
      Tokenizer tokenizer,
      GenerationRequest request,
      int promptTokens,
      int maxTokens,
      List<Integer> eosTokenIds,
      String echo,
      boolean skipSpecialTokens,
      OutputParser parser) {
    this.stream = stream;
    this.tokenizer = tokenizer;
    this.detokenizer = new IncrementalDetokenizer(tokenizer, skipSpecialTokens);
    this.echo = echo;
    this.includeStopString = request.output().includeStopString();
    this.deltas = new DeltaAssembler(parser);
    this.stopStrings = new StopStringMatcher(request.stop());
    this.stopTokenIds = request.stopTokenIds();
    this.eosTokenIds = request.ignoreEos() ? List.of() : eosTokenIds;
    this.maxTokens = maxTokens;
    this.minTokens = request.minTokens() == null ? 0 : request.minTokens();
    this.promptTokens = promptTokens;
  }

  @Override
  public int promptTokens() {
    return promptTokens;
  }

  @Override
  public String echo() {
    return echo;
  }

  @Override
  public void subscribe(Listener listener) {
    this.listener = listener;
    stream.subscribe(this);
  }

  @Override
  public void pause() {
    stream.pause();
  }

  @Override
  public void resume() {
    stream.resume();
  }

  @Override
  public void cancel() {
    stream.cancel();
  }

  @Override
  public void onOutput(EngineOutput output) {
    if (finished) {
      return;
    }
    int[] ids = output.tokenIds();
    FinishReason ownReason = null;
    int accepted = 0;
    while (accepted < ids.length && ownReason == null) {
      boolean stopsHere = completionTokens + accepted >= minTokens;
      if (stopsHere && stopTokenIds.contains(ids[accepted])) {
        ownReason = FinishReason.STOP;
      } else if (stopsHere && eosTokenIds.contains(ids[accepted])) {
        // an engine that sends its end-of-sequence token: it ends the text, not part of it
        ownReason = FinishReason.EOS;
      } else {
        accepted++;
        if (completionTokens + accepted >= maxTokens && output.finishReason() == null) {
          ownReason = FinishReason.LENGTH;
        }
      }
    }
    boolean stopStringsActive = completionTokens >= minTokens;
    completionTokens += accepted;
    String decoded;
    try {
      decoded = detokenizer.add(ids, 0, accepted);
    } catch (IllegalArgumentException e) {
      // A token id outside the model's vocabulary: the worker serves another model.
      finished = true;
      stream.cancel();
      listener.onError(
          WorkerStreamException.reported(
              "the worker returned tokens this model cannot decode: " + e.getMessage()));
      return;
    }
    List<Delta.TokenLogprob> logprobs = logprobs(output, accepted);
    // Like vLLM, stop strings only count once min_tokens have been generated.
    String text = stopStringsActive ? stopStrings.accept(decoded) : decoded;
    if (stopStrings.matched()) {
      finish(text, accepted, logprobs, FinishReason.STOP, true);
    } else if (ownReason != null) {
      // the worker is told to stop unless this output already ended its stream
      finish(
          text + flush(),
          accepted,
          logprobs,
          stopStrings.matched() ? FinishReason.STOP : ownReason,
          output.finishReason() == null);
    } else if (output.finishReason() != null) {
      String rest = flush();
      finish(
          text + rest,
          accepted,
          logprobs,
          stopStrings.matched() ? FinishReason.STOP : output.finishReason(),
          false);
    } else {
      listener.onDelta(deltas.accept(text).withLogprobs(logprobs), accepted);
    }
  }

  /**
   * The logprobs the worker sent for the first {@code accepted} tokens of {@code output}, with each
   * token's text; empty when it sent none.
   */
  private List<Delta.TokenLogprob> logprobs(EngineOutput output, int accepted) {
    List<Double> values = output.logProbs();
    if (values == null || values.isEmpty()) {
      return List.of();
    }
    int[] ids = output.tokenIds();
    List<Delta.TokenLogprob> tokens = new ArrayList<>(accepted);
    for (int i = 0; i < accepted && i < values.size(); i++) {
      List<Delta.Alternative> top = new ArrayList<>();
      if (output.topLogprobs() != null && i < output.topLogprobs().size()) {
        for (EngineOutput.TopLogprob alt : output.topLogprobs().get(i)) {
          top.add(new Delta.Alternative(tokenText(alt.tokenId(), alt.token()), alt.logprob()));
        }
      }
      tokens.add(new Delta.TokenLogprob(tokenText(ids[i], null), values.get(i), top));
    }
    return tokens;
  }

  private String tokenText(int id, String given) {
    return given != null ? given : tokenizer.decode(new int[] {id}, false);
  }

  /** The text still held back by the detokenizer and the stop-string matcher. */
  private String flush() {
    String rest = stopStrings.accept(detokenizer.finish());
    return stopStrings.matched() ? rest : rest + stopStrings.finish();
  }

  /** The matched stop string, when the request wants it kept at the end of the text. */
  private String keptStop() {
    return includeStopString ? stopStrings.matchedStop().orElse("") : "";
  }

  /**
   * Delivers the last text and the finish. {@code stopWorker} is set when the router ends the
   * generation before the worker did (stop string, stop token, max_tokens), so the worker is told
   * to stop and free the request.
   */
  private void finish(
      String text,
      int newTokens,
      List<Delta.TokenLogprob> logprobs,
      FinishReason reason,
      boolean stopWorker) {
    finished = true;
    Delta last = deltas.finish(text + keptStop()).withLogprobs(logprobs);
    if (!last.isEmpty() || newTokens > 0) {
      listener.onDelta(last, newTokens);
    }
    listener.onFinish(reason, completionTokens);
    if (stopWorker) {
      stream.cancel();
    }
  }

  @Override
  public void onComplete() {
    if (!finished) {
      // The stream ended without a finish reason on its last output.
      String rest = flush();
      finish(rest, 0, List.of(), FinishReason.STOP, false);
    }
  }

  @Override
  public void onError(Throwable error) {
    if (!finished) {
      finished = true;
      listener.onError(error);
    }
  }
}
