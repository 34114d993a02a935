package io.kvrouter.bench;

import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Time to load a model's files as the router does at start-up ({@link ModelAssets#load}: {@code
 * tokenizer.json} into the Rust tokenizer, {@code tokenizer_config.json}, the chat template
 * parsed), one load per invocation, closed again.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ModelLoadBenchmark {

  @Param({"qwen3", "llama3_1", "gemma3"})
  public String model;

  @Benchmark
  public int load() throws IOException {
    try (ModelAssets assets = ModelAssets.load(TestModels.dir(model))) {
      return assets.tokenizer().vocabularySize();
    }
  }
}
