package io.kvrouter.config;

import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * The discovery settings, with Dynamo's names and variables (docs/notes/dynamo-discovery.md §4):
 * {@code router.jar worker} offers them today ({@link WorkerSettings#ALL}); the router will offer
 * the same rows once it follows discovery.
 */
public final class DiscoverySettings {
  private DiscoverySettings() {}

  public static final Setting<DiscoveryBackend> DISCOVERY_BACKEND =
      new Setting<>(
          "discovery-backend",
          "DYN_DISCOVERY_BACKEND",
          "BACKEND",
          "static: register nowhere (routers list this worker with --worker). etcd: register this"
              + " worker as a Dynamo worker does, under one etcd lease (TTL 10 s, kept alive):"
              + " its endpoint in v1/instances/NS/COMPONENT/ENDPOINT/ID, its model card in"
              + " v1/mdc/..., and with --kv-events-format dynamo its KV event publishers in"
              + " v1/event_channels/...; ID is the lease id in hex, which is then also the worker"
              + " id. The keys vanish when the lease is revoked at shutdown or expires after a"
              + " crash.",
          "static",
          Parsers.oneOf(DiscoveryBackend.class),
          false,
          Parsers.named(DiscoveryBackend.class));

  public static final Setting<List<URI>> ETCD_ENDPOINTS =
      new Setting<>(
          "etcd-endpoints",
          "ETCD_ENDPOINTS",
          "URL[,URL]",
          "etcd's client URLs for --discovery-backend etcd, separated by commas.",
          EtcdConfig.DEFAULT_ENDPOINTS,
          "http://HOST:PORT or https://HOST:PORT, comma-separated",
          false,
          EtcdConfig::parseEndpoints);

  public static final Setting<String> ETCD_AUTH_USERNAME =
      new Setting<>(
          "etcd-auth-username",
          "ETCD_AUTH_USERNAME",
          "USER",
          "etcd user name (with --etcd-auth-password).",
          null,
          "a non-empty string",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> ETCD_AUTH_PASSWORD =
      new Setting<>(
          "etcd-auth-password",
          "ETCD_AUTH_PASSWORD",
          "PASSWORD",
          "etcd password (with --etcd-auth-username).",
          null,
          "a non-empty string",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> ETCD_AUTH_CA =
      new Setting<>(
          "etcd-auth-ca",
          "ETCD_AUTH_CA",
          "PEM",
          "CA certificate etcd's server certificate is checked against (TLS): PEM text, or the"
              + " path of a PEM file.",
          null,
          "PEM text or a file path",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> ETCD_AUTH_CLIENT_CERT =
      new Setting<>(
          "etcd-auth-client-cert",
          "ETCD_AUTH_CLIENT_CERT",
          "PEM",
          "Client certificate for etcd (mutual TLS, with --etcd-auth-client-key and"
              + " --etcd-auth-ca): PEM text, or the path of a PEM file.",
          null,
          "PEM text or a file path",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> ETCD_AUTH_CLIENT_KEY =
      new Setting<>(
          "etcd-auth-client-key",
          "ETCD_AUTH_CLIENT_KEY",
          "PEM",
          "The client certificate's private key (PKCS#8 PEM text, or the path of a PEM file).",
          null,
          "PEM text or a file path",
          false,
          Parsers::nonEmpty);

  /** Every discovery setting, in help order. */
  public static final List<Setting<?>> ALL =
      List.of(
          DISCOVERY_BACKEND,
          ETCD_ENDPOINTS,
          ETCD_AUTH_USERNAME,
          ETCD_AUTH_PASSWORD,
          ETCD_AUTH_CA,
          ETCD_AUTH_CLIENT_CERT,
          ETCD_AUTH_CLIENT_KEY);

  /** The etcd connection the settings describe; a {@link ConfigException} names a bad pairing. */
  static EtcdConfig etcd(SettingValues values) {
    try {
      return new EtcdConfig(
          values.value(ETCD_ENDPOINTS),
          Optional.ofNullable(values.value(ETCD_AUTH_USERNAME)),
          Optional.ofNullable(values.value(ETCD_AUTH_PASSWORD)),
          Optional.ofNullable(values.value(ETCD_AUTH_CA)),
          Optional.ofNullable(values.value(ETCD_AUTH_CLIENT_CERT)),
          Optional.ofNullable(values.value(ETCD_AUTH_CLIENT_KEY)));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          e.getMessage()
              + " (--etcd-auth-username/--etcd-auth-password, --etcd-auth-ca,"
              + " --etcd-auth-client-cert/--etcd-auth-client-key)");
    }
  }
}
