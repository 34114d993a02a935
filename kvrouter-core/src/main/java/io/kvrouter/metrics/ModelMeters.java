package io.kvrouter.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.List;

/**
 * The meters of one served model, as {@link Metrics#forModel} describes: a composite registry over
 * the process's, whose common tag {@code model} every meter registered through it carries there.
 */
public final class ModelMeters implements AutoCloseable {
  private final MeterRegistry process;
  private final CompositeMeterRegistry composite = new CompositeMeterRegistry();

  ModelMeters(MeterRegistry process, String model) {
    this.process = process;
    composite.config().commonTags(MetricNames.TAG_MODEL, model);
    composite.add(process);
  }

  /** Where the model's parts register their meters. */
  public MeterRegistry registry() {
    return composite;
  }

  /** Removes the model's meters from the process's registry. */
  @Override
  public void close() {
    List<Meter> meters = List.copyOf(composite.getMeters());
    for (Meter meter : meters) {
      process.remove(meter.getId());
      composite.remove(meter);
    }
    composite.remove(process);
    composite.close();
  }
}
