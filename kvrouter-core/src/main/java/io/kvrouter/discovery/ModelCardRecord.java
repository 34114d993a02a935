package io.kvrouter.discovery;

import java.util.Objects;
import java.util.Optional;

/**
 * A model deployment card registered by one worker endpoint: {@code DiscoveryInstance::Model}
 * (discovery/mod.rs @020f5c17), stored at {@code v1/mdc/{ns}/{component}/{endpoint}/{id:x}}, with
 * {@code /{model_suffix}} appended for a LoRA adapter.
 *
 * @param modelSuffix the LoRA adapter's slug; empty for a base model (written without the field,
 *     read from a missing field or {@code null})
 */
public record ModelCardRecord(
    String namespace,
    String component,
    String endpoint,
    long instanceId,
    ModelCard card,
    Optional<String> modelSuffix)
    implements DiscoveryRecord {

  public ModelCardRecord {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(component, "component");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(card, "card");
    Objects.requireNonNull(modelSuffix, "modelSuffix");
  }

  @Override
  public String key() {
    return DiscoveryBucket.MODELS.prefix()
        + namespace
        + "/"
        + component
        + "/"
        + endpoint
        + "/"
        + DynamoIds.hex(instanceId)
        + modelSuffix.map(s -> "/" + s).orElse("");
  }
}
