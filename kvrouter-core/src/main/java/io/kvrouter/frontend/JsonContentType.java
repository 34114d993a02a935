package io.kvrouter.frontend;

import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.SecurityPolicyHandler;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Lets through only requests whose body is declared JSON: a single {@code Content-Type} of {@code
 * application/json} (any case), with optional parameters of which {@code charset}, if present, must
 * be {@code utf-8}. Anything else is answered 415 before the body is read.
 *
 * <p>A browser sends {@code text/plain}, form and body-less content types cross-origin without a
 * CORS preflight; refusing them means a web page cannot make a visitor's browser drive a router it
 * can reach. A JSON content type forces the preflight, which the router does not answer. Being a
 * security policy, Vert.x lets it run before the body handler.
 */
final class JsonContentType implements SecurityPolicyHandler {
  static final String MEDIA_TYPE = "application/json";

  @Override
  public void handle(RoutingContext ctx) {
    Optional<String> refusal = refusal(ctx.request().headers().getAll("content-type"));
    if (refusal.isEmpty()) {
      ctx.next();
      return;
    }
    ErrorResponses.send(
        ctx.response(),
        new ErrorResponses.ApiError(
            415, "invalid_request_error", "unsupported_media_type", refusal.get(), null));
  }

  /** Why a request with these {@code Content-Type} values is refused; empty when it is JSON. */
  static Optional<String> refusal(List<String> contentTypes) {
    if (contentTypes.isEmpty()) {
      return Optional.of(
          "The request has no Content-Type; send the JSON body with Content-Type: " + MEDIA_TYPE);
    }
    if (contentTypes.size() > 1) {
      return Optional.of(
          "The request has "
              + contentTypes.size()
              + " Content-Type headers; send one: Content-Type: "
              + MEDIA_TYPE);
    }
    String value = contentTypes.get(0);
    String[] parts = value.split(";", -1);
    if (!parts[0].strip().toLowerCase(Locale.ROOT).equals(MEDIA_TYPE)) {
      return Optional.of(
          "Content-Type '" + value + "' is not supported; send the body as " + MEDIA_TYPE);
    }
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].strip();
      if (parameter.isEmpty()) {
        continue;
      }
      int equals = parameter.indexOf('=');
      if (equals <= 0) {
        return Optional.of(
            "Content-Type '" + value + "' has a malformed parameter '" + parameter + "'");
      }
      String name = parameter.substring(0, equals).strip().toLowerCase(Locale.ROOT);
      String parameterValue = unquoted(parameter.substring(equals + 1).strip());
      if (name.equals("charset") && !parameterValue.equalsIgnoreCase("utf-8")) {
        return Optional.of(
            "Content-Type '"
                + value
                + "' names charset "
                + parameterValue
                + "; JSON bodies must be utf-8");
      }
    }
    return Optional.empty();
  }

  private static String unquoted(String value) {
    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1)
        : value;
  }
}
