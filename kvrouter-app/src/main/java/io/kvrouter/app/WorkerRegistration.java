package io.kvrouter.app;

import io.kvrouter.config.WorkerConfig;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.etcd.EtcdRegistrar;
import io.kvrouter.discovery.kube.KubeRegistrar;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A {@code router.jar worker}'s registration, as a Dynamo worker registers: in etcd ({@code
 * --discovery-backend etcd}) under a lease granted before anything starts (its id is the worker's
 * Dynamo id, stamped on its events and in its NATS subjects), or in Kubernetes ({@code kubernetes})
 * as its pod's {@code DynamoWorkerMetadata} (the id is the pod name's hash). The records are
 * written once the servers listen, and withdrawn first thing at shutdown, so routers drop the
 * worker before its servers close.
 */
final class WorkerRegistration implements AutoCloseable {
  private final String where;
  private final LongSupplier instanceId;
  private final Consumer<List<DiscoveryRecord>> register;
  private final AutoCloseable withdraw;

  private WorkerRegistration(
      String where,
      LongSupplier instanceId,
      Consumer<List<DiscoveryRecord>> register,
      AutoCloseable withdraw) {
    this.where = where;
    this.instanceId = instanceId;
    this.register = register;
    this.withdraw = withdraw;
  }

  /**
   * Starts the registration {@code config} asks for (in etcd: grants the lease; fails when etcd
   * does not answer in time), or empty with static discovery.
   */
  static Optional<WorkerRegistration> start(WorkerConfig config) {
    if (config.etcdDiscovery().isPresent()) {
      EtcdRegistrar etcd = EtcdRegistrar.start(config.etcdDiscovery().get());
      return Optional.of(
          new WorkerRegistration(
              "etcd", etcd::instanceId, records -> records.forEach(etcd::register), etcd));
    }
    if (config.kubeDiscovery().isPresent()) {
      KubeRegistrar kube = KubeRegistrar.start(config.kubeDiscovery().get());
      return Optional.of(
          new WorkerRegistration("Kubernetes", kube::instanceId, kube::register, kube));
    }
    return Optional.empty();
  }

  /** Where it registers: {@code etcd} or {@code Kubernetes}. */
  String where() {
    return where;
  }

  long instanceId() {
    return instanceId.getAsLong();
  }

  void register(List<DiscoveryRecord> records) {
    register.accept(records);
  }

  @Override
  public void close() throws Exception {
    withdraw.close();
  }
}
