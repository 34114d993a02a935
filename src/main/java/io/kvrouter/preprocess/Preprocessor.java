package io.kvrouter.preprocess;

import io.kvrouter.preprocess.tokenizer.Tokenizer;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.routing.Router;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Optional;

/**
 * The path from a generation request to text: renders the chat template, tokenizes, hands the
 * token ids to the router, and turns the worker's token stream back into text.
 *
 * <p>The demo tokenizer costs microseconds and runs on the caller's event loop for prompts up to
 * {@link #INLINE_PROMPT_CHARS}; a real model's template and tokenizer, and any larger prompt, run
 * on a worker thread so long prompts never hold an event loop.
 */
public final class Preprocessor {
  private final Vertx vertx;
  private final ModelAssets assets;
  private final String modelName;
  private final Router router;
  private final boolean preprocessInline;

  /**
   * Largest prompt the demo tokenizer handles on the event loop; beyond it (tens of microseconds)
   * the work moves to a worker thread like a real tokenizer's.
   */
  static final int INLINE_PROMPT_CHARS = 16 * 1024;

  public Preprocessor(Vertx vertx, ModelAssets assets, String modelName, Router router) {
    this.vertx = vertx;
    this.assets = assets;
    this.modelName = modelName;
    this.router = router;
    this.preprocessInline = assets.tokenizer() == Tokenizer.bytes();
  }

  /** The model name clients request. */
  public String modelName() {
    return modelName;
  }

  /** Whether any worker can take requests now. */
  public boolean ready() {
    return router.hasHealthyWorker();
  }

  /**
   * Starts a generation. Fails with {@link InvalidRequestException} when the prompt cannot be
   * rendered or is empty, and with the router's failures when no worker takes it.
   */
  public Future<Generation> generate(GenerationRequest request) {
    return tokens(request.prompt())
        .compose(
            ids ->
                router
                    .generate(request.requestId(), preprocessed(request, ids))
                    .map(
                        stream ->
                            new DetokenizingGeneration(
                                stream, assets.tokenizer(), request, ids.length)));
  }

  /**
   * Where the router would send {@code request} and why, sending and booking nothing. Fails like
   * {@link #generate} for a prompt that cannot be rendered; empty when the router mode has no
   * costs to show.
   */
  public Future<Optional<RouteExplanation>> explain(GenerationRequest request) {
    return tokens(request.prompt()).map(ids -> router.explain(preprocessed(request, ids)));
  }

  /** What the router knows about each worker now. */
  public List<WorkerStatus> workers() {
    return router.workers();
  }

  private Future<int[]> tokens(Prompt prompt) {
    return preprocessInline && promptChars(prompt) <= INLINE_PROMPT_CHARS
        ? Future.future(p -> p.complete(tokenize(prompt)))
        : vertx.executeBlocking(() -> tokenize(prompt), false);
  }

  private static int promptChars(Prompt prompt) {
    if (prompt instanceof Prompt.Text text) {
      return text.text().length();
    }
    return ((Prompt.Chat) prompt).messages().stream().mapToInt(m -> m.content().length()).sum();
  }

  private PreprocessedRequest preprocessed(GenerationRequest request, int[] promptIds) {
    return new PreprocessedRequest(
        modelName,
        promptIds,
        new StopConditions(
            request.maxTokens(),
            request.stop().isEmpty() ? null : request.stop(),
            request.stopTokenIds().isEmpty() ? null : request.stopTokenIds(),
            request.minTokens(),
            request.ignoreEos() ? Boolean.TRUE : null),
        request.sampling(),
        null,
        assets.eosTokenIds(),
        null);
  }

  private int[] tokenize(Prompt prompt) {
    String text =
        prompt instanceof Prompt.Chat chat ? renderChat(chat) : ((Prompt.Text) prompt).text();
    int[] ids = assets.tokenizer().encode(text);
    if (ids.length == 0) {
      throw new InvalidRequestException("The prompt is empty", "prompt");
    }
    return ids;
  }

  private String renderChat(Prompt.Chat chat) {
    try {
      return assets.chatTemplate().render(chat.messages(), chat.addGenerationPrompt());
    } catch (RuntimeException e) {
      throw new InvalidRequestException(
          "The chat template of " + modelName + " cannot render these messages: " + e.getMessage(),
          "messages");
    }
  }
}
