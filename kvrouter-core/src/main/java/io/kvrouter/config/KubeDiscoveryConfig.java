package io.kvrouter.config;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a router looks for Dynamo's workers in Kubernetes (docs/notes/dynamo-discovery.md §3): the
 * namespace whose {@code DynamoWorkerMetadata} resources and EndpointSlices it watches. Dynamo's
 * processes watch their own pod's namespace ({@code POD_NAMESPACE}); the API server, credentials
 * and TLS come from the usual Kubernetes client configuration (in a pod, its service account; else
 * {@code ~/.kube/config} or {@code KUBECONFIG}).
 *
 * @param namespace the namespace to watch; empty for the client configuration's own (in a pod, its
 *     service account's namespace), or {@code default} when that names none
 */
public record KubeDiscoveryConfig(Optional<String> namespace) {
  /** A Kubernetes namespace name: an RFC 1123 DNS label. */
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  public KubeDiscoveryConfig {
    Objects.requireNonNull(namespace, "namespace");
    namespace.ifPresent(
        n -> {
          if (!DNS_LABEL.matcher(n).matches()) {
            throw new IllegalArgumentException(
                "'"
                    + n
                    + "' is not a Kubernetes namespace name (lowercase letters, digits and '-',"
                    + " at most 63, starting and ending with a letter or digit)");
          }
        });
  }

  /** Watches {@code namespace}. */
  public static KubeDiscoveryConfig inNamespace(String namespace) {
    return new KubeDiscoveryConfig(Optional.of(namespace));
  }

  /** Watches the namespace the client configuration names (in a pod: its own). */
  public static KubeDiscoveryConfig inOwnNamespace() {
    return new KubeDiscoveryConfig(Optional.empty());
  }
}
