package io.kvrouter.protocol;

import io.kvrouter.common.PlainEngine;
import java.net.URI;
import java.util.Objects;

/**
 * Where a worker serves the request plane, and how it takes its payloads.
 *
 * <p>On TCP: {@code host:port} plus the opaque routing path that Dynamo puts after the first {@code
 * /} of an instance's TCP address. On NATS: the subject its endpoint listens on ({@code
 * natsSubject}, Dynamo's {@code {slug(ns_component)}.{endpoint}-{instance:x}}); host and port are
 * then only set when the worker also has a TCP address ({@code ""} and 0 otherwise). On Dynamo's
 * HTTP request plane: the URL it advertises ({@code http://HOST:PORT/v1/rpc/ENDPOINT}); host, port
 * and path are the URL's.
 *
 * @param codec the payload codec the worker advertises (Dynamo's {@code request_plane_codec}); JSON
 *     for a worker that advertises none, as Dynamo's frontend does
 * @param natsSubject the worker endpoint's NATS subject, or {@code null} when it is reached over
 *     TCP
 * @param url for a plain engine's HTTP server (a {@code vllm serve}), its base URL; for a Dynamo
 *     worker on the HTTP request plane, its endpoint's URL; host and port are then the URL's, the
 *     path its path. {@code null} for a Dynamo worker on TCP or NATS
 * @param engine the plain engine's API; {@code null} for a Dynamo worker
 */
public record WorkerEndpoint(
    String workerId,
    String host,
    int port,
    String path,
    PayloadCodec codec,
    String natsSubject,
    URI url,
    PlainEngine engine) {

  /** The path Dynamo's classic workers register their generate endpoint under. */
  public static final String DEFAULT_PATH = "generate";

  public WorkerEndpoint {
    Objects.requireNonNull(workerId, "workerId");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(codec, "codec");
    if (engine != null && url == null) {
      throw new IllegalArgumentException("a plain engine has a URL");
    }
    boolean noAddress = host.isEmpty() && port == 0;
    if (!(noAddress && natsSubject != null) && (port < 1 || port > 65535)) {
      throw new IllegalArgumentException("port out of range: " + port);
    }
  }

  /** A Dynamo worker, on TCP or (with {@code natsSubject}) NATS. */
  public WorkerEndpoint(
      String workerId, String host, int port, String path, PayloadCodec codec, String natsSubject) {
    this(workerId, host, port, path, codec, natsSubject, null, null);
  }

  /** A plain engine's HTTP server at {@code url} ({@code http://HOST:PORT[/PATH]}). */
  public static WorkerEndpoint http(String workerId, URI url, PlainEngine engine) {
    String path = url.getPath() == null ? "" : url.getPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    int port = url.getPort() > 0 ? url.getPort() : 80;
    return new WorkerEndpoint(
        workerId, url.getHost(), port, path, PayloadCodec.JSON, null, url, engine);
  }

  /**
   * A Dynamo worker's endpoint on Dynamo's HTTP request plane, at the URL it advertises ({@code
   * http://HOST:PORT/v1/rpc/generate}).
   */
  public static WorkerEndpoint dynamoHttp(String workerId, URI url, PayloadCodec codec) {
    String path = url.getRawPath() == null ? "" : url.getRawPath();
    if (!"http".equals(url.getScheme())
        || url.getHost() == null
        || !path.startsWith("/")
        || path.endsWith("/")
        || url.getRawQuery() != null
        || url.getRawFragment() != null) {
      throw new IllegalArgumentException("not an http://HOST[:PORT]/PATH/ENDPOINT URL: " + url);
    }
    int port = url.getPort() > 0 ? url.getPort() : 80;
    return new WorkerEndpoint(workerId, url.getHost(), port, path, codec, null, url, null);
  }

  /** Whether it is a plain engine reached over HTTP. */
  public boolean isHttp() {
    return engine != null;
  }

  /** Whether it is a Dynamo worker reached over Dynamo's HTTP request plane. */
  public boolean isDynamoHttp() {
    return url != null && engine == null;
  }

  /** A worker reached over TCP at {@code host:port/path}, taking JSON. */
  public WorkerEndpoint(String workerId, String host, int port, String path) {
    this(workerId, host, port, path, PayloadCodec.JSON, null);
  }

  /** The same worker, taking {@code payloads}. */
  public WorkerEndpoint withCodec(PayloadCodec payloads) {
    return new WorkerEndpoint(workerId, host, port, path, payloads, natsSubject, url, engine);
  }

  /** The same worker, reached over NATS on {@code subject}. */
  public WorkerEndpoint withNatsSubject(String subject) {
    return new WorkerEndpoint(workerId, host, port, path, codec, subject, url, engine);
  }

  /**
   * The same worker's endpoint named {@code name}: the path with its last {@code /}-separated
   * segment, the endpoint's name in Dynamo's paths ({@code generate} or {@code
   * {instance_hex}/generate}), replaced by {@code name}; on NATS, the subject's endpoint name
   * (between its last {@code .} and its last {@code -}) replaced too.
   */
  public WorkerEndpoint sibling(String name) {
    int slash = path.lastIndexOf('/');
    String subject = null;
    if (natsSubject != null) {
      int dot = natsSubject.lastIndexOf('.');
      int dash = natsSubject.lastIndexOf('-');
      subject = natsSubject.substring(0, dot + 1) + name + natsSubject.substring(dash);
    }
    String siblingPath = path.substring(0, slash + 1) + name;
    URI siblingUrl = url;
    if (isDynamoHttp()) {
      siblingUrl = URI.create(url.getScheme() + "://" + url.getRawAuthority() + siblingPath);
    }
    return new WorkerEndpoint(
        workerId, host, port, siblingPath, codec, subject, siblingUrl, engine);
  }

  /**
   * {@code host:port/path}, the form Dynamo publishes in discovery; on NATS, the subject; over
   * HTTP, the URL.
   */
  public String address() {
    if (url != null) {
      return url.toString();
    }
    return natsSubject != null ? natsSubject : host + ":" + port + "/" + path;
  }
}
