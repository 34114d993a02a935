package io.kvrouter.app;

import io.kvrouter.config.RequestPlaneCodec;
import io.kvrouter.config.RequestPlaneKind;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.discovery.DynamoIds;
import io.kvrouter.discovery.InstanceRecord;
import io.kvrouter.discovery.RuntimeConfig;
import io.kvrouter.discovery.Transport;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.WorkerEndpoint;
import java.net.URI;
import java.util.Optional;

/**
 * A discovered worker instance as the router's worker set takes it: its spec (id, address, KV
 * capacity, data-parallel ranks, codec) and where its generate endpoint is reached.
 *
 * <p>The id is the instance id in decimal, the form Dynamo's KV events carry it in ({@code
 * worker_id}). The address is the record's transport: TCP {@code host:port/PATH} (the path is what
 * the worker's shared TCP server routes by: {@code {id:x}/generate} in current Dynamo, {@code
 * generate} before), on the NATS request plane the subject as written, and on Dynamo's HTTP request
 * plane the URL as written. A router on {@code --request-plane http} takes TCP workers too.
 */
record DiscoveredWorker(WorkerSpec spec, WorkerEndpoint endpoint) {

  /**
   * @param runtime the capacity and ranks its model card declares
   * @param plane the router's request plane
   * @throws IllegalArgumentException saying why the router cannot reach it: a transport of another
   *     request plane, or an address it cannot read
   */
  static DiscoveredWorker of(
      InstanceRecord instance, RuntimeConfig runtime, RequestPlaneKind plane) {
    String id = DynamoIds.decimal(instance.instanceId());
    Transport transport = instance.transport();
    RequestPlaneKind needs =
        switch (transport.kind()) {
          case TCP -> RequestPlaneKind.TCP;
          case NATS -> RequestPlaneKind.NATS;
          case HTTP -> RequestPlaneKind.HTTP;
        };
    if (needs != plane && !(needs == RequestPlaneKind.TCP && plane == RequestPlaneKind.HTTP)) {
      throw new IllegalArgumentException(
          "it serves the "
              + needs.configName()
              + " request plane, and this router uses --request-plane "
              + plane.configName());
    }
    RequestPlaneCodec codec =
        instance.requestPlaneCodec().map(c -> c.equals("msgpack")).orElse(false)
            ? RequestPlaneCodec.MSGPACK
            : RequestPlaneCodec.JSON;
    long kvBlocks = runtime.totalKvBlocks().orElse(0);
    int dpSize = Math.max(1, Math.min(WorkerSpec.MAX_DP_SIZE, runtime.dataParallelSize()));
    PayloadCodec payloads = PayloadCodec.valueOf(codec.name());
    if (needs == RequestPlaneKind.NATS) {
      WorkerSpec spec =
          new WorkerSpec(
              id,
              "",
              0,
              instance.endpoint(),
              kvBlocks,
              Optional.empty(),
              dpSize,
              codec,
              DynamoIds.hex(instance.instanceId()));
      return new DiscoveredWorker(
          spec, new WorkerEndpoint(id, "", 0, instance.endpoint(), payloads, transport.address()));
    }
    if (needs == RequestPlaneKind.HTTP) {
      return overHttp(id, instance, transport, kvBlocks, dpSize, codec, payloads);
    }
    String hostPort = transport.tcpHostPort().orElseThrow();
    String address = transport.address();
    String path =
        address.length() > hostPort.length() + 1
            ? address.substring(hostPort.length() + 1)
            : instance.endpoint();
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("its TCP address " + address + " has no port");
    }
    String host = hostPort.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("its TCP address " + address + " has no valid port");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("its TCP address " + address + " has no valid port");
    }
    WorkerSpec spec =
        new WorkerSpec(id, host, port, path, kvBlocks, Optional.empty(), dpSize, codec, null);
    return new DiscoveredWorker(spec, new WorkerEndpoint(id, host, port, path, payloads, null));
  }

  /** A worker on Dynamo's HTTP request plane: its endpoint's URL, used verbatim. */
  private static DiscoveredWorker overHttp(
      String id,
      InstanceRecord instance,
      Transport transport,
      long kvBlocks,
      int dpSize,
      RequestPlaneCodec codec,
      PayloadCodec payloads) {
    WorkerEndpoint endpoint;
    try {
      endpoint = WorkerEndpoint.dynamoHttp(id, URI.create(transport.address()), payloads);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "its HTTP address " + transport.address() + " is not an http://HOST:PORT/PATH URL");
    }
    // the URL's path in the spec: a worker that comes back under another root is a changed one
    WorkerSpec spec =
        new WorkerSpec(
            id,
            endpoint.host(),
            endpoint.port(),
            endpoint.path(),
            kvBlocks,
            Optional.empty(),
            dpSize,
            codec,
            null);
    return new DiscoveredWorker(spec, endpoint);
  }
}
