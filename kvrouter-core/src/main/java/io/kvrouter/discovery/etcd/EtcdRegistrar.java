package io.kvrouter.discovery.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import io.kvrouter.common.DaemonThreads;
import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.DiscoveryCodec;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.DynamoIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's side of Dynamo's etcd discovery: one lease per process, granted at start with a TTL of
 * 10 s and kept alive (Dynamo: {@code create_lease(…, 10, …)}, keep-alive every TTL/2; jetcd renews
 * every TTL/3), every record put under it, and the lease revoked on a clean {@link #close()}, so
 * that all keys vanish at once; after a crash they vanish when the lease expires.
 *
 * <p>The worker's instance id is the first lease's id, as Dynamo's is. The first put of a key is
 * Dynamo's create-if-absent transaction ({@code kv_create}: put if the key's version is 0).
 *
 * <p>A lost lease (expired because etcd did not hear from us for a TTL, revoked by someone else, or
 * gone with an etcd that lost its data) is where this differs from Dynamo: Dynamo retries the
 * keep-alive on the same lease for about 12 s, then shuts the process down (lease.rs @6d2e40e8;
 * older versions at once, @49b1c7ca). This registrar grants a new lease (retrying every second
 * while etcd does not answer), puts every record again under it, <em>with the same keys and
 * instance id</em> (a plain put, which also rebinds a key still held by the old lease), then
 * revokes the old lease if it still exists. A router sees the worker go and come back under the
 * same id; the process keeps serving meanwhile.
 *
 * <p>Lease work runs on a thread of its own; {@link #register} and {@link #close} block their
 * caller (at most {@link #CALL_TIMEOUT} per etcd call), so call them off any event loop.
 */
public final class EtcdRegistrar implements AutoCloseable {
  /** Dynamo's primary lease TTL. */
  public static final long LEASE_TTL_SECONDS = 10;

  public static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(EtcdRegistrar.class);
  private static final long REGRANT_RETRY_MILLIS = 1_000;

  private final Client client;
  private final boolean ownsClient;
  private final long instanceId;
  private final ScheduledExecutorService thread;

  // on `thread` (and read by callers through the synchronized accessors)
  private final List<DiscoveryRecord> records = new ArrayList<>();
  private long leaseId;
  private int leasesGranted;
  private CloseableClient keepAlive;
  private boolean closed;

  private EtcdRegistrar(Client client, boolean ownsClient, long leaseId) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.instanceId = leaseId;
    this.leaseId = leaseId;
    this.leasesGranted = 1;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            DaemonThreads.named("etcd-registrar-" + DynamoIds.hex(leaseId)));
  }

  /**
   * Grants the process's lease on the etcd {@code config} names and starts keeping it alive.
   *
   * @throws EtcdUnavailableException when etcd does not grant it within {@link #CALL_TIMEOUT}
   */
  public static EtcdRegistrar start(EtcdConfig config) {
    Client client = EtcdClients.connect(config);
    try {
      return start(client, true);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /** The same through {@code client}, which stays the caller's to close. */
  public static EtcdRegistrar start(Client client) {
    return start(client, false);
  }

  private static EtcdRegistrar start(Client client, boolean ownsClient) {
    long lease =
        await(client.getLeaseClient().grant(LEASE_TTL_SECONDS), "granting a lease").getID();
    EtcdRegistrar registrar = new EtcdRegistrar(client, ownsClient, lease);
    registrar.thread.execute(registrar::keepAlive);
    return registrar;
  }

  /** The worker's instance id: its first lease's id (u64 bits; hex in the keys). */
  public long instanceId() {
    return instanceId;
  }

  /** The lease the records are under now (another one after a lost lease). */
  public long leaseId() {
    return onThread(() -> leaseId);
  }

  /** How many leases this process was granted: 1, plus one per lost lease. */
  public int leasesGranted() {
    return onThread(() -> leasesGranted);
  }

  /**
   * Puts {@code record} under the lease (create-if-absent, as Dynamo) and keeps it for
   * re-registration after a lost lease.
   *
   * @throws EtcdUnavailableException when etcd does not answer within {@link #CALL_TIMEOUT}
   */
  public void register(DiscoveryRecord record) {
    onThread(
        () -> {
          if (closed) {
            throw new IllegalStateException("the registrar is closed");
          }
          createUnderLease(record, leaseId);
          records.add(record);
          return null;
        });
  }

  /** Dynamo's {@code kv_create}: one transaction, put if the key's version is 0. */
  private void createUnderLease(DiscoveryRecord record, long lease) {
    ByteSequence key = EtcdClients.bytes(record.key());
    await(
        client
            .getKVClient()
            .txn()
            .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0)))
            .Then(
                Op.put(
                    key,
                    ByteSequence.from(DiscoveryCodec.encode(record)),
                    PutOption.builder().withLeaseId(lease).build()))
            .commit(),
        "registering " + record.key());
  }

  private void keepAlive() {
    if (closed) {
      return;
    }
    long lease = leaseId;
    keepAlive =
        client
            .getLeaseClient()
            .keepAlive(
                lease,
                new StreamObserver<>() {
                  @Override
                  public void onNext(LeaseKeepAliveResponse response) {
                    // renewed; jetcd reports a lease etcd no longer knows as an error
                  }

                  @Override
                  public void onError(Throwable t) {
                    thread.execute(() -> leaseLost(lease, t.toString()));
                  }

                  @Override
                  public void onCompleted() {
                    thread.execute(() -> leaseLost(lease, "the keep-alive stream ended"));
                  }
                });
  }

  /** Grants a new lease and puts every record again under it (see the class comment). */
  private void leaseLost(long lease, String reason) {
    if (closed || lease != leaseId) {
      return;
    }
    LOG.warn(
        "etcd lease {} lost ({}); registering instance {} again under a new lease",
        DynamoIds.hex(lease),
        reason,
        DynamoIds.hex(instanceId));
    closeKeepAlive();
    long fresh;
    try {
      fresh = await(client.getLeaseClient().grant(LEASE_TTL_SECONDS), "granting a lease").getID();
      for (DiscoveryRecord record : records) {
        await(
            client
                .getKVClient()
                .put(
                    EtcdClients.bytes(record.key()),
                    ByteSequence.from(DiscoveryCodec.encode(record)),
                    PutOption.builder().withLeaseId(fresh).build()),
            "registering " + record.key());
      }
    } catch (EtcdUnavailableException e) {
      LOG.debug("re-registration failed, retrying", e);
      thread.schedule(() -> leaseLost(lease, reason), REGRANT_RETRY_MILLIS, TimeUnit.MILLISECONDS);
      return;
    }
    leaseId = fresh;
    leasesGranted++;
    client.getLeaseClient().revoke(lease).exceptionally(gone -> null);
    LOG.info(
        "instance {} registered again under lease {}",
        DynamoIds.hex(instanceId),
        DynamoIds.hex(fresh));
    keepAlive();
  }

  private void closeKeepAlive() {
    if (keepAlive != null) {
      keepAlive.close();
      keepAlive = null;
    }
  }

  /**
   * Revokes the lease, so every record goes at once (a clean shutdown), and closes the client if it
   * is its own. A revoke that fails (etcd away) leaves the keys to expire with the lease.
   */
  @Override
  public void close() {
    if (thread.isShutdown()) {
      return; // closed already
    }
    try {
      onThread(
          () -> {
            if (!closed) {
              closed = true;
              closeKeepAlive();
              try {
                await(client.getLeaseClient().revoke(leaseId), "revoking the lease");
              } catch (EtcdUnavailableException e) {
                LOG.warn("{}; the keys go when the lease expires", e.getMessage());
              }
            }
            return null;
          });
    } finally {
      thread.shutdownNow();
      if (ownsClient) {
        client.close();
      }
    }
  }

  private <T> T onThread(java.util.concurrent.Callable<T> task) {
    try {
      return thread.submit(task).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EtcdUnavailableException("interrupted", e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new EtcdUnavailableException(e.getCause().toString(), e.getCause());
    }
  }

  private static <T> T await(CompletableFuture<T> call, String what) {
    try {
      return call.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EtcdUnavailableException(what + ": interrupted", e);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new EtcdUnavailableException(
          what + ": etcd did not answer within " + CALL_TIMEOUT.toSeconds() + " s", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new EtcdUnavailableException(what + ": " + e.getCause().getMessage(), e.getCause());
    }
  }
}
