package io.kvrouter.config;

/**
 * Snapshots of the KV index shared by a fleet of routers.
 *
 * @param enabled {@code --router-index-snapshots}
 * @param threshold {@code --router-snapshot-threshold}: KV events the index takes between two
 *     snapshots
 * @param reset {@code --router-reset-states}: delete the snapshot at start
 */
public record IndexSnapshotConfig(boolean enabled, int threshold, boolean reset) {
  /** No snapshots. */
  public static final IndexSnapshotConfig OFF = new IndexSnapshotConfig(false, 1_000_000, false);

  public IndexSnapshotConfig {
    if (threshold < 1) {
      throw new IllegalArgumentException("threshold must be positive: " + threshold);
    }
  }
}
