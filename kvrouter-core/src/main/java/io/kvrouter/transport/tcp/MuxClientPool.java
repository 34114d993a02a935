package io.kvrouter.transport.tcp;

import io.kvrouter.common.Ticker;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A worker's pooled {@code tcp_response_mux_v1} connections: Dynamo's {@code ResponseMuxClientPool}
 * ({@code tcp/mux/client.rs} at 06d22825). Connections are kept per (frontend address, frontend id,
 * version), at most {@link #POOL_SIZE} of them; a stream goes on the one carrying the fewest
 * streams, and another connection is opened in the background while every one carries some, up to
 * the limit (Dynamo warms all four at once; this one grows as load asks). A frontend's connections
 * are closed once none has carried a stream for {@link #IDLE_TTL}. Everything runs on one context.
 */
final class MuxClientPool {
  static final int POOL_SIZE = 4;
  static final Duration IDLE_TTL = Duration.ofSeconds(300);
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final long CLEANUP_MS = 30_000;

  private record HostKey(String address, UUID frontendServerId, int version) {}

  private final Vertx vertx;
  private final Context context;
  private final PlaneClient client;
  private final int maxMessageSize;
  private final int poolSize;
  private final Ticker ticker;
  private final Map<HostKey, HostPool> hosts = new HashMap<>();
  private final AtomicInteger opened = new AtomicInteger();
  private long cleanupTimer = -1;
  private boolean closed;

  MuxClientPool(Vertx vertx, PlaneClient client, int maxMessageSize, int poolSize, Ticker ticker) {
    if (poolSize < 1) {
      throw new IllegalArgumentException("poolSize must be at least 1");
    }
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.client = client;
    this.maxMessageSize = maxMessageSize;
    this.poolSize = poolSize;
    this.ticker = ticker;
  }

  Context context() {
    return context;
  }

  /** How many mux connections this worker has opened so far. */
  int connectionsOpened() {
    return opened.get();
  }

  /** A connection to carry one more stream to the frontend {@code info} names. */
  Future<WorkerMuxConnection> connection(ResponseMuxInfo info) {
    Promise<WorkerMuxConnection> picked = Promise.promise();
    context.runOnContext(
        v -> {
          if (closed) {
            picked.fail("the worker is shutting down");
            return;
          }
          HostAndPort address;
          try {
            address = HostAndPort.parse(info.address());
          } catch (IllegalArgumentException e) {
            picked.fail(e);
            return;
          }
          HostKey key = new HostKey(info.address(), info.frontendServerId(), info.version());
          hosts
              .computeIfAbsent(key, k -> new HostPool(address, k.frontendServerId()))
              .pick()
              .onComplete(picked);
          if (cleanupTimer < 0) {
            cleanupTimer = vertx.setPeriodic(CLEANUP_MS, id -> retire());
          }
        });
    return picked.future();
  }

  /**
   * Closes the connections of every frontend idle for {@link #IDLE_TTL} (Dynamo checks every 30 s).
   */
  Future<Void> retireIdle() {
    Promise<Void> done = Promise.promise();
    context.runOnContext(
        v -> {
          retire();
          done.complete();
        });
    return done.future();
  }

  private void retire() {
    long now = ticker.nanos();
    for (Iterator<HostPool> it = hosts.values().iterator(); it.hasNext(); ) {
      HostPool host = it.next();
      if (host.idleSince(now) >= IDLE_TTL.toNanos()) {
        it.remove();
        host.close();
      }
    }
  }

  /** Closes every connection; the streams on them are cancelled. The pool stays usable. */
  Future<Void> dropConnections() {
    Promise<Void> done = Promise.promise();
    context.runOnContext(
        v -> {
          List.copyOf(hosts.values()).forEach(HostPool::close);
          hosts.clear();
          done.complete();
        });
    return done.future();
  }

  Future<Void> close() {
    return dropConnections()
        .onComplete(
            v ->
                context.runOnContext(
                    w -> {
                      closed = true;
                      if (cleanupTimer >= 0) {
                        vertx.cancelTimer(cleanupTimer);
                      }
                    }));
  }

  /** The connections to one frontend. */
  private final class HostPool {
    private final HostAndPort address;
    private final UUID frontendServerId;
    private final List<WorkerMuxConnection> live = new ArrayList<>();
    private Future<WorkerMuxConnection> connecting;
    private long lastUsed = ticker.nanos();

    HostPool(HostAndPort address, UUID frontendServerId) {
      this.address = address;
      this.frontendServerId = frontendServerId;
    }

    Future<WorkerMuxConnection> pick() {
      lastUsed = ticker.nanos();
      if (live.isEmpty()) {
        return connecting != null ? connecting : openOne();
      }
      WorkerMuxConnection least =
          live.stream().min(Comparator.comparingInt(WorkerMuxConnection::activeStreams)).get();
      if (least.activeStreams() > 0 && connecting == null && live.size() < poolSize) {
        openOne(); // warm another for the streams to come
      }
      return Future.succeededFuture(least);
    }

    private Future<WorkerMuxConnection> openOne() {
      opened.incrementAndGet();
      connecting =
          WorkerMuxConnection.open(
              vertx,
              client,
              address,
              frontendServerId,
              maxMessageSize,
              CONNECT_TIMEOUT,
              live::remove);
      connecting.onComplete(
          ar -> {
            connecting = null;
            if (ar.succeeded()) {
              live.add(ar.result());
            }
          });
      return connecting;
    }

    long idleSince(long now) {
      for (WorkerMuxConnection connection : live) {
        if (connection.activeStreams() > 0) {
          lastUsed = now;
        }
      }
      return connecting != null ? 0 : now - lastUsed;
    }

    void close() {
      List.copyOf(live).forEach(WorkerMuxConnection::close);
      live.clear();
    }
  }
}
