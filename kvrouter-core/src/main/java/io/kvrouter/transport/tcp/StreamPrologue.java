package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The second frame on a call-home connection, header-only: Dynamo's {@code ResponseStreamPrologue}.
 * {@code {"error":null}} means the worker's generate call started; a string means it failed and no
 * item follows. Dynamo's v1 workers may add a {@code typed_error} object, which is ignored here.
 *
 * @param error {@code null} on success
 */
record StreamPrologue(@JsonProperty("error") String error) {

  static final StreamPrologue OK = new StreamPrologue(null);

  boolean ok() {
    return error == null;
  }
}
