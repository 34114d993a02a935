package io.kvrouter.app;

import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.etcd.EtcdRegistrar;
import java.util.List;

/**
 * A {@code router.jar worker}'s registration in etcd ({@code --discovery-backend etcd}): the lease
 * granted before anything starts (its id is the worker's Dynamo id, stamped on its events and in
 * its NATS subjects), the records put once the servers listen, the lease revoked first thing at
 * shutdown so routers drop the worker before its servers close.
 */
final class WorkerRegistration implements AutoCloseable {
  private final EtcdRegistrar registrar;

  private WorkerRegistration(EtcdRegistrar registrar) {
    this.registrar = registrar;
  }

  /** Grants the lease; fails when etcd does not answer in time. */
  static WorkerRegistration grant(EtcdConfig etcd) {
    return new WorkerRegistration(EtcdRegistrar.start(etcd));
  }

  long instanceId() {
    return registrar.instanceId();
  }

  void register(List<DiscoveryRecord> records) {
    records.forEach(registrar::register);
  }

  @Override
  public void close() {
    registrar.close();
  }
}
