package io.kvrouter.protocol;

/** The request names a model that no worker serves. */
public final class ModelNotFoundException extends RouterException {
  public ModelNotFoundException(String model) {
    super("The model '" + model + "' does not exist", null);
  }
}
