package io.kvrouter.frontend;

import io.kvrouter.common.Ticker;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.preprocess.Preprocessor;
import io.kvrouter.protocol.ModelNotFoundException;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The models this router serves, by the name clients put in a request's {@code model}: each with
 * its {@link Preprocessor} (tokenizer, template, router and workers) and its request metrics.
 * Thread-safe: requests look models up on event loops while models are added.
 */
public final class ServedModels {
  /** One served model. */
  record ServedModel(Preprocessor preprocessor, FrontendMetrics metrics) {
    String name() {
      return preprocessor.modelName();
    }
  }

  private final Metrics metrics;
  private final Ticker ticker;
  private final ConcurrentSkipListMap<String, ServedModel> byName = new ConcurrentSkipListMap<>();

  /**
   * @param metrics where each model's request metrics are registered
   * @param ticker where the requests' times, for the metrics, are read
   */
  public ServedModels(Metrics metrics, Ticker ticker) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  /**
   * Serves {@code preprocessor}'s model from now on.
   *
   * @param kvCacheBlockSize the model's KV block size, for the metrics
   * @throws IllegalStateException if a model of that name is served already
   */
  public void add(Preprocessor preprocessor, int kvCacheBlockSize) {
    String name = preprocessor.modelName();
    ServedModel model =
        new ServedModel(preprocessor, new FrontendMetrics(metrics, name, kvCacheBlockSize, ticker));
    if (byName.putIfAbsent(name, model) != null) {
      throw new IllegalStateException("model " + name + " is served already");
    }
  }

  /**
   * The model named {@code name}.
   *
   * @throws ModelNotFoundException if none is served under that name
   */
  ServedModel find(String name) {
    ServedModel model = byName.get(name);
    if (model == null) {
      throw new ModelNotFoundException(name);
    }
    return model;
  }

  /** Every served model, by name. */
  Collection<ServedModel> all() {
    return List.copyOf(byName.values());
  }

  /** The names of the models that have a worker able to take requests now. */
  List<String> ready() {
    return byName.values().stream()
        .filter(m -> m.preprocessor().ready())
        .map(ServedModel::name)
        .toList();
  }

  /** Requests being served now, over every model. */
  int inflight() {
    return byName.values().stream().mapToInt(m -> m.metrics().inflight()).sum();
  }
}
