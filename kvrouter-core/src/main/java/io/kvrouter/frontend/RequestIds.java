package io.kvrouter.frontend;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives every request its ids, first thing, before the key check: the router's own (a random UUID,
 * unique among the requests in flight, the key of everything the router books for the request and
 * the {@code id} of its completion) and the client's {@code X-Request-Id}, when it sent a valid
 * one. The response carries {@code X-Request-Id} whatever its status: the client's id, or the
 * router's when the client sent none or an invalid one (which is replaced, never echoed).
 *
 * <p>As Dynamo's frontend does ({@code lib/llm/src/http/service/openai.rs}, {@code
 * get_or_create_request_id}, and {@code lib/runtime/src/logging.rs}, {@code
 * make_inference_request_span}), the client's {@code x-request-id} is kept beside the server's
 * request id, not used as it: the completion's {@code id} and the request plane's {@code
 * request-id} stay the server's, and the client's id travels as {@code x-request-id}. Two clients
 * (or one, retrying) may send the same id at once; a key they chose could collide, so nothing is
 * booked under it.
 *
 * <p>A valid id has 1 to {@value #MAX_LENGTH} characters from {@code A-Z a-z 0-9 - _ . : + =}: what
 * UUIDs, ULIDs and the usual trace ids are made of, and nothing that could split a log line, forge
 * a header or be read as a path.
 */
final class RequestIds implements Handler<RoutingContext> {
  private static final Logger log = LoggerFactory.getLogger(RequestIds.class);

  static final String HEADER = "X-Request-Id";

  /** The longest client id kept. */
  static final int MAX_LENGTH = 128;

  private static final String KEY = "kvrouter.request-id";

  /**
   * A request's ids.
   *
   * @param internal the router's id: unique while the request runs
   * @param client the client's {@code X-Request-Id}; null when it sent no valid one
   */
  record RequestId(String internal, String client) {
    /** The id the client is told ({@code X-Request-Id}) and error messages name. */
    String shown() {
      return client == null ? internal : client;
    }

    /** Both ids, for a log line: what an operator searches by either. */
    @Override
    public String toString() {
      return client == null ? internal : client + " (router id " + internal + ")";
    }
  }

  @Override
  public void handle(RoutingContext ctx) {
    List<String> given = ctx.request().headers().getAll(HEADER);
    String client = given.size() == 1 && valid(given.get(0)) ? given.get(0) : null;
    if (client == null && !given.isEmpty()) {
      // the value is not logged: it is what failed the check
      log.debug("A request's X-Request-Id was not valid and was replaced");
    }
    RequestId id = new RequestId(UUID.randomUUID().toString(), client);
    ctx.put(KEY, id);
    ctx.response().putHeader(HEADER, id.shown());
    ctx.next();
  }

  /** The request's ids; new ones when it came by no route this handler ran on. */
  static RequestId of(RoutingContext ctx) {
    RequestId id = ctx.get(KEY);
    return id != null ? id : new RequestId(UUID.randomUUID().toString(), null);
  }

  /** Whether a client's {@code X-Request-Id} is kept (bounded, safe characters only). */
  static boolean valid(String id) {
    if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_'
              || c == '.'
              || c == ':'
              || c == '+'
              || c == '=';
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
