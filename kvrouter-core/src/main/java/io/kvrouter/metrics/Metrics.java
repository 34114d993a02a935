package io.kvrouter.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The process's meter registry, scraped in Prometheus text format. Meter names are written the way
 * Prometheus shows them (Dynamo's names, see {@link MetricNames}); histograms get explicit buckets
 * so dashboards built for Dynamo keep working.
 */
public final class Metrics {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * A registry for the meters of one served model's parts (its router, index, event plane), when a
   * router serves several: each meter registered through it lands in this registry with the tag
   * {@code model=NAME} added, so that two models' meters of one name are two series rather than one
   * registration ignored. {@link ModelMeters#close()} removes them all (the model is gone).
   */
  public ModelMeters forModel(String model) {
    return new ModelMeters(registry, model);
  }

  /** Every meter in Prometheus text exposition format. */
  public String scrape() {
    return registry.scrape();
  }

  /** A histogram with the given bucket bounds; {@code tags} are name/value pairs. */
  public DistributionSummary histogram(
      String name, String description, double[] buckets, String... tags) {
    return DistributionSummary.builder(name)
        .description(description)
        .serviceLevelObjectives(buckets)
        .tags(tags)
        .register(registry);
  }

  /** Bucket bounds from {@code start}, each {@code factor} times the one before. */
  public static double[] exponentialBuckets(double start, double factor, int count) {
    double[] buckets = new double[count];
    double bound = start;
    for (int i = 0; i < count; i++) {
      buckets[i] = bound;
      bound *= factor;
    }
    return buckets;
  }
}
