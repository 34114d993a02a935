package io.kvrouter.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kvrouter.config.ConfigLoader;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.RouterMode;
import java.io.ByteArrayInputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Helm chart ({@code helm/kvrouter}) rendered by Helm's own library for its default values and
 * each example setup, every object parsed with the Kubernetes model (a field the model does not
 * know fails), and checked against the router itself: the rendered router.yaml loads with the
 * router's {@link ConfigLoader}, probes and ports match its settings, the RBAC is what its
 * discovery reads.
 */
class HelmChartTest {
  private static final Path CHART = Path.of("..", "helm", "kvrouter");
  private static final KubernetesClient MODEL = new KubernetesClientBuilder().build();

  @TempDir Path dir;

  @AfterAll
  static void close() {
    MODEL.close();
  }

  private static List<HasMetadata> render(Path valuesFile, Map<String, Object> sets) {
    TemplateCommand template = new Helm(CHART).template().withName("kvr").withNamespace("ai");
    if (valuesFile != null) {
      template.withValuesFile(valuesFile);
    }
    sets.forEach(template::set);
    String yaml = template.call();
    List<HasMetadata> objects =
        MODEL.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
    objects.forEach(o -> assertNoUnknownFields(o, o.getKind()));
    return objects;
  }

  private static <T extends HasMetadata> T one(List<HasMetadata> objects, Class<T> kind) {
    List<T> found = objects.stream().filter(kind::isInstance).map(kind::cast).toList();
    assertThat(found).as(kind.getSimpleName()).hasSize(1);
    return found.get(0);
  }

  @Test
  void theChartLints() {
    LintResult lint = new Helm(CHART).lint().strict().call();
    assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
  }

  @Test
  void theDefaultInstall_isARouterWithSafeDefaults_whoseConfigTheRouterLoads() throws Exception {
    List<HasMetadata> objects = render(null, Map.of());
    assertThat(objects.stream().map(HasMetadata::getKind).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(
            "ConfigMap", "Deployment", "Service", "ServiceAccount", "PodDisruptionBudget");

    RouterConfig config = load(one(objects, ConfigMap.class));
    Deployment deployment = one(objects, Deployment.class);
    Container router = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(router.getPorts().get(0).getContainerPort()).isEqualTo(config.http().port());
    assertThat(router.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/live");
    assertThat(router.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health");
    assertThat(router.getArgs()).containsExactly("--config", "/etc/kvrouter/router.yaml");
    assertThat(
            deployment.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable().getIntVal())
        .isZero();
    assertThat(deployment.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds())
        .as("the drain, plus the preStop pause and a margin")
        .isEqualTo(config.http().gracefulShutdownTimeout().toSeconds() + 15);
    assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot())
        .isTrue();
    assertThat(router.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(router.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(config.mockWorkers().count()).as("the demo install").isEqualTo(2);
  }

  @Test
  void dynamoDiscovery_getsReadAccessToWhatItWatches() throws Exception {
    List<HasMetadata> objects = render(CHART.resolve("examples/dynamo.yaml"), Map.of());
    RouterConfig config = load(one(objects, ConfigMap.class));
    assertThat(config.discovery().kube()).isPresent();
    Role role = one(objects, Role.class);
    assertThat(rules(role))
        .containsExactlyInAnyOrder(
            "nvidia.com/dynamoworkermetadatas:get,list,watch",
            "discovery.k8s.io/endpointslices:get,list,watch");
    RoleBinding binding = one(objects, RoleBinding.class);
    assertThat(binding.getSubjects().get(0).getName())
        .isEqualTo(
            one(objects, Deployment.class)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getServiceAccountName());
  }

  @Test
  void vllmPods_getReadAccessToPods_andStaticWorkersNoRole() throws Exception {
    // the examples name a model id; here a folder stands in (the model need not be cached)
    Map<String, Object> model = Map.of("router.model-path", dir.toString());
    List<HasMetadata> pods = render(CHART.resolve("examples/vllm-pods.yaml"), model);
    assertThat(load(one(pods, ConfigMap.class)).discovery().pods()).isPresent();
    assertThat(rules(one(pods, Role.class))).containsExactly("/pods:get,list,watch");

    List<HasMetadata> listed = render(CHART.resolve("examples/static.yaml"), model);
    assertThat(load(one(listed, ConfigMap.class)).workers()).hasSize(2);
    assertThat(listed).noneMatch(o -> o instanceof Role);
  }

  @Test
  void theDemoInstall_runsSimulatedEnginesTheRouterLists() throws Exception {
    List<HasMetadata> objects =
        render(null, Map.of("demoWorkers.enabled", true, "demoWorkers.replicas", 3));
    io.fabric8.kubernetes.api.model.apps.StatefulSet workers =
        one(objects, io.fabric8.kubernetes.api.model.apps.StatefulSet.class);
    assertThat(workers.getSpec().getReplicas()).isEqualTo(3);
    assertThat(workers.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains("worker", "--api=openai");
    RouterConfig config = load(one(objects, ConfigMap.class));
    assertThat(config.mockWorkers().count()).as("engines instead of in-process ones").isZero();
    assertThat(config.workers())
        .extracting(w -> w.id() + " " + w.url())
        .containsExactly(
            "kvr-kvrouter-demo-worker-0 http://kvr-kvrouter-demo-worker-0.kvr-kvrouter-demo-worker:8000",
            "kvr-kvrouter-demo-worker-1 http://kvr-kvrouter-demo-worker-1.kvr-kvrouter-demo-worker:8000",
            "kvr-kvrouter-demo-worker-2 http://kvr-kvrouter-demo-worker-2.kvr-kvrouter-demo-worker:8000");
    assertThat(config.workers().get(0).kvEvents()).isPresent();
  }

  @Test
  void autoscalingAndMonitoring_areThereWhenAskedFor() {
    List<HasMetadata> objects =
        render(null, Map.of("autoscaling.enabled", true, "serviceMonitor.enabled", true));
    io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler hpa =
        one(objects, io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler.class);
    assertThat(hpa.getSpec().getScaleTargetRef().getName())
        .isEqualTo(one(objects, Deployment.class).getMetadata().getName());
    assertThat(one(objects, Deployment.class).getSpec().getReplicas())
        .as("the HPA owns the replica count")
        .isNull();
    HasMetadata monitor =
        objects.stream()
            .filter(o -> o.getKind().equals("ServiceMonitor"))
            .findFirst()
            .orElseThrow();
    assertThat(monitor.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"replicaCount=0", "service.port=70000", "router.router-mode=fastest"})
  void theSchema_refusesBadValues(String assignment) {
    String[] kv = assignment.split("=", 2);
    Object value = kv[1].matches("\\d+") ? Integer.valueOf(kv[1]) : kv[1];
    assertThatThrownBy(() -> render(null, Map.of(kv[0], value)))
        .hasMessageContaining("values don't meet the specifications of the schema");
  }

  @Test
  void theSchemasRouterModes_areTheRoutersOwn() throws Exception {
    JsonNode schema = new ObjectMapper().readTree(CHART.resolve("values.schema.json").toFile());
    List<String> modes = new ArrayList<>();
    schema.at("/properties/router/properties/router-mode/enum").forEach(m -> modes.add(m.asText()));
    assertThat(modes)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(RouterMode.values()).map(RouterMode::configName).toList());
  }

  /** The rendered router.yaml, loaded by the router's own loader. */
  private RouterConfig load(ConfigMap map) throws Exception {
    Path file = Files.writeString(dir.resolve("router.yaml"), map.getData().get("router.yaml"));
    return ConfigLoader.load(Map.of(), Map.of(), file);
  }

  private static Set<String> rules(Role role) {
    return role.getRules().stream()
        .flatMap(
            (PolicyRule rule) ->
                rule.getResources().stream()
                    .map(
                        r ->
                            rule.getApiGroups().get(0)
                                + "/"
                                + r
                                + ":"
                                + String.join(",", rule.getVerbs())))
        .collect(Collectors.toSet());
  }

  /** Fails when the model put any field it does not know aside (a typo in a template). */
  private static void assertNoUnknownFields(Object node, String where) {
    if (node == null) {
      return;
    }
    if (node instanceof Collection<?> items) {
      items.forEach(item -> assertNoUnknownFields(item, where));
      return;
    }
    if (!(node instanceof KubernetesResource)
        || node instanceof io.fabric8.kubernetes.api.model.GenericKubernetesResource) {
      return; // a custom resource (ServiceMonitor) has no model of its fields here
    }
    for (Method getter : node.getClass().getMethods()) {
      if (getter.getParameterCount() != 0 || !getter.getName().startsWith("get")) {
        continue;
      }
      Object value;
      try {
        value = getter.invoke(node);
      } catch (ReflectiveOperationException e) {
        continue;
      }
      if (getter.getName().equals("getAdditionalProperties")) {
        assertThat((Map<?, ?>) value).as("unknown fields in " + where).isNullOrEmpty();
      } else if (value instanceof KubernetesResource || value instanceof Collection<?>) {
        assertNoUnknownFields(value, where + "." + getter.getName().substring(3));
      }
    }
  }
}
