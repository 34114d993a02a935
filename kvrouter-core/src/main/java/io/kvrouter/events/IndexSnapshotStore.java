package io.kvrouter.events;

import io.kvrouter.protocol.snapshot.IndexSnapshot;
import java.io.IOException;
import java.util.Optional;

/**
 * Where the routers of a fleet keep the snapshots of their KV index ({@code
 * --router-index-snapshots}), each under a name (the endpoint and model it covers), and agree which
 * of them writes it: one router holds a name's lock at a time, and another takes it over when the
 * holder stops renewing it.
 *
 * <p>Every call blocks on the network: not for an event loop.
 */
public interface IndexSnapshotStore extends AutoCloseable {

  /** The newest snapshot named {@code name}; empty when there is none. */
  Optional<IndexSnapshot> load(String name) throws IOException, InterruptedException;

  /** Replaces the snapshot named {@code name}; returns its size in bytes. */
  long save(String name, IndexSnapshot snapshot) throws IOException, InterruptedException;

  /** Deletes the snapshot named {@code name} ({@code --router-reset-states}), if there is one. */
  void delete(String name) throws IOException, InterruptedException;

  /**
   * Takes or renews the lock on writing {@code name} for {@code owner}: true when {@code owner}
   * holds it now, false when another router does.
   */
  boolean lock(String name, String owner) throws IOException, InterruptedException;

  @Override
  void close();
}
