package io.kvrouter.bench;

import io.kvrouter.preprocess.ChatMessage;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.TestModels;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
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
 * Multi-turn chats as a router sees them, with and without the tokenizer's cache of prompt pieces
 * ({@code segmentCacheTokens} 0 or 4,000,000). One operation replays {@value #CONVERSATIONS}
 * conversations turn by turn, interleaved: each request is the whole conversation so far rendered
 * by the model's template and tokenized, until the conversation holds {@code tokens} tokens. Every
 * operation starts from a fresh tokenizer (an empty cache) and new conversations. The time per
 * request is the time per operation divided by {@link #requests}, which the setup prints.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class MultiTurnTokenizeBenchmark {
  static final int CONVERSATIONS = 4;

  @Param({"8192"})
  public int tokens;

  @Param({"qwen3"})
  public String model;

  @Param({"0", "4000000"})
  public long segmentCacheTokens;

  private ModelAssets assets;
  private Tokenizer tokenizer;
  private List<List<ChatMessage>> requests;
  private long seed = 11;

  @Setup(Level.Trial)
  public void loadModel() throws IOException {
    assets = ModelAssets.load(TestModels.dir(model));
  }

  @Setup(Level.Iteration)
  public void freshChats() throws IOException {
    tokenizer = Tokenizer.huggingFace(TestModels.tokenizerJson(model), segmentCacheTokens);
    SplittableRandom random = new SplittableRandom(seed++);
    List<List<ChatMessage>> conversations = new ArrayList<>();
    List<Boolean> done = new ArrayList<>();
    for (int c = 0; c < CONVERSATIONS; c++) {
      List<ChatMessage> conversation = new ArrayList<>();
      conversation.add(ChatMessage.system("You are a helpful assistant. Answer precisely."));
      conversations.add(conversation);
      done.add(false);
    }
    requests = new ArrayList<>();
    while (done.contains(false)) {
      for (int c = 0; c < CONVERSATIONS; c++) {
        if (done.get(c)) {
          continue;
        }
        List<ChatMessage> conversation = conversations.get(c);
        if (conversation.size() > 1) {
          conversation.add(ChatMessage.assistant(PreprocessBenchmark.sentence(random, 120)));
        }
        conversation.add(ChatMessage.user(PreprocessBenchmark.sentence(random, 60)));
        requests.add(List.copyOf(conversation));
        String prompt = assets.chatTemplate().render(conversation, true, Map.of());
        done.set(c, assets.tokenizer().encode(prompt, false).length >= tokens);
      }
    }
    System.out.println("\n[requests per operation: " + requests.size() + "]");
  }

  @TearDown(Level.Iteration)
  public void closeTokenizer() {
    tokenizer.close();
  }

  @TearDown(Level.Trial)
  public void closeModel() {
    assets.close();
  }

  @Benchmark
  public long replay() {
    long ids = 0;
    for (List<ChatMessage> conversation : requests) {
      String prompt = assets.chatTemplate().render(conversation, true, Map.of());
      ids += tokenizer.encode(prompt, false).length;
    }
    return ids;
  }
}
