package io.kvrouter.preprocess;

import io.kvrouter.preprocess.parse.OutputParser;
import io.kvrouter.preprocess.parse.ReasoningParserName;
import io.kvrouter.preprocess.parse.ToolCallParserName;
import io.kvrouter.preprocess.template.ChatTemplateException;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.routing.Router;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Optional;

/**
 * The path from a generation request to text: renders the chat template, tokenizes, hands the token
 * ids to the router, and turns the worker's token stream back into text.
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
  private final OutputParsers parsers;
  private final boolean preprocessInline;

  /**
   * Largest prompt the demo tokenizer handles on the event loop; beyond it (tens of microseconds)
   * the work moves to a worker thread like a real tokenizer's.
   */
  static final int INLINE_PROMPT_CHARS = 16 * 1024;

  public Preprocessor(
      Vertx vertx, ModelAssets assets, String modelName, Router router, OutputParsers parsers) {
    this.vertx = vertx;
    this.assets = assets;
    this.modelName = modelName;
    this.router = router;
    this.parsers = parsers;
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
   * rendered or is empty, or when the request is longer than the model's context length or the
   * largest worker's KV cache ({@link SequenceLimit}), and with the router's failures when no
   * worker takes it.
   */
  public Future<Generation> generate(GenerationRequest request) {
    return generate(request, AdmissionGate.OPEN);
  }

  /**
   * Starts a generation as {@link #generate(GenerationRequest)} does, passing {@code gate} once the
   * prompt is tokenized and within the limits and before the router is asked: a gate that throws
   * fails the generation, which then books nothing and reaches no worker. The booking is settled
   * with the tokens used when the generation ends, or with none when the router fails it.
   */
  public Future<Generation> generate(GenerationRequest request, AdmissionGate gate) {
    OutputOptions output = request.output();
    if (output.parseToolCalls() && parsers.toolCalls() == null) {
      return Future.failedFuture(
          new InvalidRequestException(
              "'tool_choice' \"auto\" needs a tool-call parser: start the router with"
                  + " --tool-call-parser NAME for "
                  + modelName,
              "tool_choice"));
    }
    return admit(request).compose(admitted -> route(request, admitted, gate));
  }

  private Future<Generation> route(
      GenerationRequest request, Admitted admitted, AdmissionGate gate) {
    AdmissionGate.Booking booking =
        gate.admit(request, admitted.prompt().ids().length, admitted.completionTokens());
    return router
        .generate(request.requestId(), preprocessed(request, admitted.prompt().ids()))
        .<Generation>map(
            stream -> new SettlingGeneration(detokenizing(stream, request, admitted), booking))
        .onFailure(e -> booking.settle(0));
  }

  /** A prompt made ready, and the most tokens its completion may have. */
  private record Admitted(PreparedPrompt prompt, int completionTokens) {}

  /**
   * Prepares the prompt of {@code request} and checks the request against the model's context
   * length and the largest worker's KV cache, whichever is smaller ({@link SequenceLimit}): a
   * {@code max_tokens} over it fails before the prompt is tokenized, a prompt that, with {@code
   * max_tokens}, is over it fails after. Without {@code max_tokens} the completion may have what
   * the prompt leaves; without a known limit, no bound but {@code max_tokens}.
   */
  private Future<Admitted> admit(GenerationRequest request) {
    Optional<SequenceLimit> limit =
        SequenceLimit.of(assets.contextLength(), router.largestKvCapacityTokens());
    if (limit.isEmpty()) {
      int completionTokens = request.maxTokens() == null ? Integer.MAX_VALUE : request.maxTokens();
      return prepare(request).map(prompt -> new Admitted(prompt, completionTokens));
    }
    try {
      limit.get().checkMaxTokens(request);
    } catch (InvalidRequestException e) {
      return Future.failedFuture(e);
    }
    return prepare(request)
        .map(
            prompt ->
                new Admitted(prompt, limit.get().completionTokens(request, prompt.ids().length)));
  }

  private Generation detokenizing(
      ResponseStream stream, GenerationRequest request, Admitted admitted) {
    PreparedPrompt prompt = admitted.prompt();
    OutputOptions output = request.output();
    ReasoningParserName reasoning = output.parseReasoning() ? parsers.reasoning() : null;
    ToolCallParserName toolCalls = output.parseToolCalls() ? parsers.toolCalls() : null;
    OutputParser parser =
        reasoning == null && toolCalls == null
            ? null
            : OutputParser.of(reasoning, toolCalls, prompt.text());
    // a parser whose markers are special tokens must see them, as vLLM arranges for Mistral
    boolean skipSpecial =
        output.skipSpecialTokens()
            && (toolCalls == null || !toolCalls.needsSpecialTokens())
            && (reasoning == null || !reasoning.needsSpecialTokens());
    return new DetokenizingGeneration(
        stream,
        assets.tokenizer(),
        request,
        prompt.ids().length,
        admitted.completionTokens(),
        assets.eosTokenIds(),
        output.echo() ? prompt.text() : "",
        skipSpecial,
        parser);
  }

  /**
   * Where the router would send {@code request} and why, sending and booking nothing. Fails like
   * {@link #generate} for a prompt that cannot be rendered or a request over the limits; empty when
   * the router mode has no costs to show.
   */
  public Future<Optional<RouteExplanation>> explain(GenerationRequest request) {
    return admit(request)
        .map(admitted -> router.explain(preprocessed(request, admitted.prompt().ids())));
  }

  /** What the router knows about each worker now. */
  public List<WorkerStatus> workers() {
    return router.workers();
  }

  /**
   * A prompt made ready: its token ids and its text (the rendered chat, the text as given, or the
   * token ids decoded when the text is needed for an echo).
   */
  private record PreparedPrompt(int[] ids, String text) {}

  private Future<PreparedPrompt> prepare(GenerationRequest request) {
    Prompt prompt = request.prompt();
    boolean echo = request.output().echo();
    return preprocessInline && promptChars(prompt) <= INLINE_PROMPT_CHARS
        ? Future.future(p -> p.complete(prepare(prompt, echo)))
        : vertx.executeBlocking(() -> prepare(prompt, echo), false);
  }

  private static int promptChars(Prompt prompt) {
    if (prompt instanceof Prompt.Text text) {
      return text.text().length();
    }
    if (prompt instanceof Prompt.Tokens tokens) {
      return tokens.ids().length;
    }
    return ((Prompt.Chat) prompt).messages().stream().mapToInt(m -> m.text().length()).sum();
  }

  private PreprocessedRequest preprocessed(GenerationRequest request, int[] promptIds) {
    PreprocessedRequest plain =
        new PreprocessedRequest(
            modelName,
            promptIds,
            new StopConditions(
                request.maxTokens(),
                request.stop().isEmpty() ? null : request.stop(),
                request.stopTokenIds().isEmpty() ? null : request.stopTokenIds(),
                request.minTokens(),
                request.ignoreEos() ? Boolean.TRUE : null),
            request.sampling(),
            request.output().logprobs() == null
                ? null
                : new PreprocessedRequest.OutputOptions(request.output().logprobs(), null),
            assets.eosTokenIds(),
            null,
            null,
            request.clientRequestId());
    return plain.withCacheSalt(request.cacheSalt());
  }

  private PreparedPrompt prepare(Prompt prompt, boolean echo) {
    PreparedPrompt prepared;
    if (prompt instanceof Prompt.Tokens tokens) {
      int[] ids = checkedTokens(tokens.ids());
      prepared = new PreparedPrompt(ids, echo ? assets.tokenizer().decode(ids) : "");
    } else if (prompt instanceof Prompt.Text text) {
      prepared =
          new PreparedPrompt(
              assets.tokenizer().encode(text.text(), text.addSpecialTokens()), text.text());
    } else {
      String rendered = renderChat((Prompt.Chat) prompt);
      prepared = new PreparedPrompt(assets.tokenizer().encode(rendered, false), rendered);
    }
    if (prepared.ids().length == 0) {
      throw new InvalidRequestException("The prompt is empty", "prompt");
    }
    return prepared;
  }

  private int[] checkedTokens(int[] ids) {
    int vocabulary = assets.tokenizer().vocabularySize();
    for (int id : ids) {
      if (id < 0 || id >= vocabulary) {
        throw new InvalidRequestException(
            "Token id "
                + id
                + " in 'prompt' is outside the vocabulary of "
                + modelName
                + " (0 to "
                + (vocabulary - 1)
                + ")",
            "prompt");
      }
    }
    return ids;
  }

  /**
   * The chat prompt as text: the template rendered with the request's tools and variables. The
   * template's own errors ({@link ChatTemplateException}: its {@code raise_exception}, a Jinja
   * error and its line, a missing template) reach the client as a 400 with their message, as vLLM
   * answers them. Any other failure is the router's (a renderer bug, a JDK exception whose message
   * names Java classes): it goes on as an unexpected failure, which the client sees as a fixed 500
   * naming the request id and the operator finds in the log with its cause.
   */
  private String renderChat(Prompt.Chat chat) {
    try {
      return ChatRendering.text(assets.chatTemplate(), chat);
    } catch (InvalidRequestException e) {
      throw e;
    } catch (ChatTemplateException e) {
      throw new InvalidRequestException(
          "The chat template of " + modelName + " cannot render these messages: " + e.getMessage(),
          "messages");
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "The chat template of " + modelName + " failed unexpectedly", e);
    }
  }
}
