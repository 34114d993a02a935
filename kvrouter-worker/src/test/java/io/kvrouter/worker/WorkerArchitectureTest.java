package io.kvrouter.worker;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulated worker speaks the shared vocabulary only: it uses {@code protocol}, {@code config},
 * {@code common} and {@code metrics} of the core, never the router's stages, and its engine and KV
 * cache stay free of Vert.x.
 */
class WorkerArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kvrouter.worker");
  }

  @Test
  void worker_importsOnlyTheSharedVocabulary() {
    classes()
        .that(resideInAPackage("io.kvrouter.worker.."))
        .should()
        .onlyDependOnClassesThat(
            resideOutsideOfPackage("io.kvrouter..")
                .or(resideInAPackage("io.kvrouter.worker.."))
                .or(resideInAPackage("io.kvrouter.protocol.."))
                .or(resideInAPackage("io.kvrouter.config.."))
                .or(resideInAPackage("io.kvrouter.common.."))
                .or(resideInAPackage("io.kvrouter.metrics..")))
        .check(classes);
  }

  @Test
  void engineAndKvCache_areFreeOfVertx() {
    noClasses()
        .that(resideInAPackage("io.kvrouter.worker.engine.."))
        .or(resideInAPackage("io.kvrouter.worker.kv.."))
        .should()
        .dependOnClassesThat(resideInAPackage("io.vertx..").or(resideInAPackage("io.netty..")))
        .check(classes);
  }
}
