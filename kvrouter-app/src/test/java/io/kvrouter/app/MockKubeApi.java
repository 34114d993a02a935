package io.kvrouter.app;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * fabric8's mock Kubernetes API server in CRUD mode on loopback, knowing Dynamo's {@code
 * DynamoWorkerMetadata}, made the usual client configuration of this JVM (system properties, put
 * back on close) and offered as environment variables to worker processes.
 */
final class MockKubeApi implements AutoCloseable {
  private final KubernetesMockServer server;
  final KubernetesClient client;
  private final Map<String, String> saved = new HashMap<>();
  private final Map<String, String> properties = new LinkedHashMap<>();

  MockKubeApi(String namespace) {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    server.expectCustomResource(
        new CustomResourceDefinitionContext.Builder()
            .withGroup("nvidia.com")
            .withVersion("v1alpha1")
            .withKind("DynamoWorkerMetadata")
            .withPlural("dynamoworkermetadatas")
            .withScope("Namespaced")
            .build());
    client = server.createClient();
    properties.put("kubernetes.master", client.getConfiguration().getMasterUrl());
    properties.put("kubernetes.auth.tryKubeConfig", "false");
    properties.put("kubernetes.auth.tryServiceAccount", "false");
    properties.put("kubernetes.namespace", namespace);
    properties.forEach(
        (key, value) -> {
          saved.put(key, System.getProperty(key));
          System.setProperty(key, value);
        });
  }

  /** The same client configuration as a process's environment variables. */
  Map<String, String> environment() {
    Map<String, String> env = new LinkedHashMap<>();
    properties.forEach((key, value) -> env.put(key.toUpperCase().replace('.', '_'), value));
    return env;
  }

  @Override
  public void close() {
    saved.forEach(
        (key, value) -> {
          if (value == null) {
            System.clearProperty(key);
          } else {
            System.setProperty(key, value);
          }
        });
    client.close();
    try {
      server.destroy();
    } catch (IllegalStateException e) {
      // its own shutdown wait can run out on a loaded machine: the test double's teardown
      System.err.println("mock API server still stopping after its shutdown wait: " + e);
    }
  }
}
