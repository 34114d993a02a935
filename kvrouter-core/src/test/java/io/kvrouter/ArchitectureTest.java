package io.kvrouter;

import static com.tngtech.archunit.base.DescribedPredicate.or;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.kvrouter.routing.index.KvEventSink;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The core module's import rules (docs/architecture.md): data flows one way, each stage imports
 * only the next stage's top-level package, nothing imports the frontend, the Jinja interpreter
 * needs the JDK alone, and the pure packages stay free of Vert.x and Netty. Which module may use
 * which is Maven's to enforce (the core depends on neither the worker, the tools nor the app). A
 * pattern ending in {@code ..} covers subpackages; one without covers exactly that package.
 */
class ArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kvrouter");
  }

  static Stream<Arguments> rules() {
    return Stream.of(
        rule("io.kvrouter.common..", "io.kvrouter.common.."),
        rule("io.kvrouter.config..", "io.kvrouter.config..", "io.kvrouter.common.."),
        rule("io.kvrouter.protocol..", "io.kvrouter.protocol..", "io.kvrouter.common.."),
        rule("io.kvrouter.metrics..", "io.kvrouter.metrics..", "io.kvrouter.common.."),
        rule(
            "io.kvrouter.routing.index..",
            "io.kvrouter.routing.index..",
            "io.kvrouter.protocol..",
            "io.kvrouter.common..",
            "io.kvrouter.metrics.."),
        rule(
            "io.kvrouter.routing.schedule..",
            "io.kvrouter.routing.schedule..",
            "io.kvrouter.protocol..",
            "io.kvrouter.common..",
            "io.kvrouter.config..",
            "io.kvrouter.metrics.."),
        rule(
            "io.kvrouter.routing",
            "io.kvrouter.routing",
            "io.kvrouter.routing.index..",
            "io.kvrouter.routing.schedule..",
            "io.kvrouter.transport",
            "io.kvrouter.protocol..",
            "io.kvrouter.config..",
            "io.kvrouter.common..",
            "io.kvrouter.metrics.."),
        rule(
            "io.kvrouter.transport..",
            "io.kvrouter.transport..",
            "io.kvrouter.protocol..",
            "io.kvrouter.config..",
            "io.kvrouter.common..",
            "io.kvrouter.metrics.."),
        rule(
            "io.kvrouter.preprocess..",
            "io.kvrouter.preprocess..",
            "io.kvrouter.jinja..",
            "io.kvrouter.routing",
            "io.kvrouter.protocol..",
            "io.kvrouter.config..",
            "io.kvrouter.common..",
            "io.kvrouter.metrics.."),
        rule(
            "io.kvrouter.frontend..",
            "io.kvrouter.frontend..",
            "io.kvrouter.preprocess",
            "io.kvrouter.protocol..",
            "io.kvrouter.config..",
            "io.kvrouter.common..",
            "io.kvrouter.metrics.."),
        rule(
            "io.kvrouter.discovery",
            "io.kvrouter.discovery",
            "io.kvrouter.config..",
            "io.kvrouter.common.."),
        rule(
            "io.kvrouter.discovery.etcd..",
            "io.kvrouter.discovery",
            "io.kvrouter.discovery.etcd..",
            "io.kvrouter.config..",
            "io.kvrouter.common.."),
        rule(
            "io.kvrouter.discovery.kube..",
            "io.kvrouter.discovery",
            "io.kvrouter.discovery.kube..",
            "io.kvrouter.config..",
            "io.kvrouter.common.."),
        rule(
            "io.kvrouter.events..",
            "io.kvrouter.events..",
            "io.kvrouter.routing.index",
            "io.kvrouter.protocol..",
            "io.kvrouter.config..",
            "io.kvrouter.common..",
            "io.kvrouter.metrics.."));
  }

  private static Arguments rule(String subject, String... allowed) {
    return Arguments.of(subject, allowed);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rules")
  void stage_importsOnlyWhatDesignAllows(String subject, String[] allowed) {
    DescribedPredicate<JavaClass> allowedTargets =
        or(
            Stream.concat(
                    Stream.of(resideOutsideOfPackage("io.kvrouter..")),
                    Arrays.stream(allowed).map(p -> resideInAPackage(p)))
                .toList());
    classes()
        .that(resideInAPackage(subject))
        .should()
        .onlyDependOnClassesThat(allowedTargets)
        .allowEmptyShould(subject.contains("common") || subject.contains("routing."))
        .check(classes);
  }

  @Test
  void nothingInTheCoreImportsTheFrontend() {
    noClasses()
        .that(resideOutsideOfPackage("io.kvrouter.frontend.."))
        .should()
        .dependOnClassesThat(resideInAPackage("io.kvrouter.frontend.."))
        .check(classes);
  }

  @Test
  void discovery_isReachedOnlyFromTheApp() {
    noClasses()
        .that(resideOutsideOfPackage("io.kvrouter.discovery.."))
        .should()
        .dependOnClassesThat(resideInAPackage("io.kvrouter.discovery.."))
        .check(classes);
  }

  @Test
  void discoveryWireModel_isFreeOfTheEtcdAndKubernetesClientsAndOfVertx() {
    noClasses()
        .that(resideInAPackage("io.kvrouter.discovery"))
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.etcd..")
                .or(resideInAPackage("io.fabric8.."))
                .or(resideInAPackage("io.grpc.."))
                .or(resideInAPackage("io.vertx.."))
                .or(resideInAPackage("io.netty..")))
        .check(classes);
  }

  @Test
  void jinja_usesTheJdkAlone() {
    classes()
        .that(resideInAPackage("io.kvrouter.jinja.."))
        .should()
        .onlyDependOnClassesThat(
            resideInAPackage("java..").or(resideInAPackage("io.kvrouter.jinja..")))
        .check(classes);
  }

  @Test
  void eventPlane_reachesTheIndexOnlyThroughItsSinkPort() {
    noClasses()
        .that(resideInAPackage("io.kvrouter.events.."))
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.kvrouter.routing..")
                .and(DescribedPredicate.not(JavaClass.Predicates.equivalentTo(KvEventSink.class))))
        .check(classes);
  }

  @Test
  void purePackages_areFreeOfVertxAndNetty() {
    noClasses()
        .that(resideInAPackage("io.kvrouter.protocol.."))
        .or(resideInAPackage("io.kvrouter.preprocess.tokenizer.."))
        .or(resideInAPackage("io.kvrouter.preprocess.template.."))
        .or(resideInAPackage("io.kvrouter.routing.index.."))
        .or(resideInAPackage("io.kvrouter.routing.schedule.."))
        .should()
        .dependOnClassesThat(resideInAPackage("io.vertx..").or(resideInAPackage("io.netty..")))
        .check(classes);
  }
}
