package io.kvrouter.frontend;

import io.kvrouter.common.Ticker;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.preprocess.Preprocessor;
import io.kvrouter.protocol.ModelNotFoundException;
import io.kvrouter.protocol.NoWorkerAvailableException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The models this router serves, by the name clients put in a request's {@code model}: each with
 * its {@link Preprocessor} (tokenizer, template, router and workers) and its request metrics; and
 * the models that were found but cannot be served, each with the reason. Thread-safe: requests look
 * models up on event loops while discovery adds and removes them.
 *
 * <p>A model's request metrics outlive its removal: a model that comes back counts on where it left
 * off, since a meter registry keeps one meter per name and tags.
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
  private final ConcurrentSkipListMap<String, String> unavailable = new ConcurrentSkipListMap<>();
  private final Map<String, FrontendMetrics> metricsByName = new ConcurrentHashMap<>();

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
    FrontendMetrics requests =
        metricsByName.computeIfAbsent(
            name, n -> new FrontendMetrics(metrics, n, kvCacheBlockSize, ticker));
    if (byName.putIfAbsent(name, new ServedModel(preprocessor, requests)) != null) {
      throw new IllegalStateException("model " + name + " is served already");
    }
    unavailable.remove(name);
  }

  /**
   * Stops serving model {@code name}: requests for it are answered 404 from now on (requests
   * already running go on).
   *
   * @return false when it was not served
   */
  public boolean remove(String name) {
    return byName.remove(name) != null;
  }

  /**
   * Records that model {@code name} was found but cannot be served, and why: requests for it get a
   * 503 saying so, and {@code /router/workers} lists it. It must not be served.
   */
  public void unavailable(String name, String reason) {
    if (byName.containsKey(name)) {
      throw new IllegalStateException("model " + name + " is served");
    }
    unavailable.put(name, reason);
  }

  /** Forgets that model {@code name} could not be served (it is gone). */
  public void forgetUnavailable(String name) {
    unavailable.remove(name);
  }

  /** The models found but not served, with the reason, by name. */
  Map<String, String> unavailableModels() {
    return Map.copyOf(unavailable);
  }

  /**
   * The model named {@code name}.
   *
   * @throws ModelNotFoundException if none is served under that name
   * @throws NoWorkerAvailableException if it was found but cannot be served
   */
  ServedModel find(String name) {
    ServedModel model = byName.get(name);
    if (model == null) {
      String reason = unavailable.get(name);
      if (reason != null) {
        throw new NoWorkerAvailableException(
            "The model '" + name + "' cannot be served: " + reason);
      }
      throw new ModelNotFoundException(name);
    }
    return model;
  }

  /** The names of the models served, in order. */
  public List<String> names() {
    return List.copyOf(byName.keySet());
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
