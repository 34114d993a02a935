package io.kvrouter.tools.bench;

import io.vertx.core.json.Json;

/**
 * The body of one benchmark request: a streamed {@code /v1/completions} call whose prompt is the
 * trace request's token ids, generating exactly {@code max_tokens} ({@code ignore_eos}) and ending
 * with a usage chunk. Written by hand: a long prompt as a JSON array of boxed integers would cost
 * far more than the digits.
 */
final class CompletionBody {
  private CompletionBody() {}

  static String json(String model, int[] prompt, int maxTokens) {
    StringBuilder body = new StringBuilder(prompt.length * 7 + 160);
    body.append("{\"model\":").append(Json.encode(model)).append(",\"prompt\":[");
    for (int i = 0; i < prompt.length; i++) {
      if (i > 0) {
        body.append(',');
      }
      body.append(prompt[i]);
    }
    return body.append("],\"max_tokens\":")
        .append(maxTokens)
        .append(",\"ignore_eos\":true,\"stream\":true,\"stream_options\":{\"include_usage\":true}}")
        .toString();
  }
}
