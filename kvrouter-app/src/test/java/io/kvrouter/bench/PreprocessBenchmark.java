package io.kvrouter.bench;

import io.kvrouter.preprocess.ChatMessage;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.TestModels;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
import io.kvrouter.preprocess.tokenizer.TokenizerVariants;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The router's preprocessing of one chat request on one core, with a real model's files: the chat
 * template rendered by our Jinja interpreter ({@code renderOnly}), the rendered prompt tokenized
 * ({@code tokenizeOnly}) by Hugging Face's Rust library through DJL ({@code encoder=rust}) or by
 * our Java byte-level BPE as the router loads it ({@code encoder=java}, no piece cache), and both
 * as a request pays them ({@code renderAndTokenize}). Sample time, so JMH reports p50 and p99.
 *
 * <p>The conversation is a multi-turn chat (system prompt, then user and assistant turns of 60 to
 * 300 words of English-like text drawn from a fixed seed) grown until its rendered prompt holds
 * {@code tokens} tokens, give or take one turn. Models: {@code scripts/fetch-test-models}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PreprocessBenchmark {

  @Param({"1024", "8192", "32768"})
  public int tokens;

  @Param({"qwen3", "llama3_1"})
  public String model;

  /** {@code rust}: DJL's binding of Hugging Face's library; {@code java}: our byte-level BPE. */
  @Param({"rust", "java"})
  public String encoder;

  private static final String[] WORDS =
      ("the of and to in is was that for it with as on be at by this had not are but from or have"
              + " an they which one you were her all she there would their we him been has when who"
              + " will more no if out so said what up its about into than them can only other new"
              + " some could time these two may then do first any my now such like our over man me"
              + " even most made after also did many before must through back years where much your"
              + " way well down should because each just those people how too little state good"
              + " very make world still own see men work long get here between both life being under"
              + " never day same another know while last might us great old year off come since"
              + " against go came right used take three router cache token prefix block worker"
              + " latency throughput request 2026 42 3.14 Paris Tokyo naïve café résumé")
          .split(" ");

  private ModelAssets assets;
  private Tokenizer tokenizer;
  private List<ChatMessage> conversation;
  private String rendered;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    // without the piece cache: every invocation tokenizes the same prompt, which the cache would
    // answer from memory (MultiTurnTokenizeBenchmark measures the cache on growing chats)
    assets = ModelAssets.load(TestModels.dir(model));
    tokenizer = TokenizerVariants.load(TestModels.tokenizerJson(model), encoder);
    SplittableRandom random = new SplittableRandom(7);
    conversation = new ArrayList<>();
    conversation.add(ChatMessage.system("You are a helpful assistant. Answer precisely."));
    while (true) {
      String role = conversation.size() % 2 == 1 ? "user" : "assistant";
      conversation.add(new ChatMessage(role, sentence(random, 60 + random.nextInt(241))));
      if (role.equals("user")) {
        int size = tokenizer.encode(render(), false).length;
        if (size >= tokens) {
          break;
        }
      }
    }
    rendered = render();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    assets.close();
    tokenizer.close();
  }

  static String sentence(SplittableRandom random, int words) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        text.append(random.nextInt(12) == 0 ? ". " : random.nextInt(15) == 0 ? ",\n" : " ");
      }
      text.append(WORDS[random.nextInt(WORDS.length)]);
    }
    return text.append('.').toString();
  }

  private String render() {
    return assets.chatTemplate().render(conversation, true, Map.of());
  }

  @Benchmark
  public String renderOnly() {
    return render();
  }

  @Benchmark
  public int[] tokenizeOnly() {
    return tokenizer.encode(rendered, false);
  }

  @Benchmark
  public int[] renderAndTokenize() {
    return tokenizer.encode(render(), false);
  }
}
