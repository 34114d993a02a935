package io.kvrouter.tools;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The offline tools drive the router's policies ({@code routing}'s API) and the worker's engine
 * ({@code worker.engine}) in virtual time; they reach no adapter, transport or frontend.
 */
class ToolsArchitectureTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.kvrouter.tools");
  }

  @Test
  void tools_importOnlyPoliciesEngineAndVocabulary() {
    classes()
        .that(resideInAPackage("io.kvrouter.tools.."))
        .should()
        .onlyDependOnClassesThat(
            resideOutsideOfPackage("io.kvrouter..")
                .or(resideInAPackage("io.kvrouter.tools.."))
                .or(resideInAPackage("io.kvrouter.routing"))
                .or(resideInAPackage("io.kvrouter.worker.engine.."))
                .or(resideInAPackage("io.kvrouter.protocol.."))
                .or(resideInAPackage("io.kvrouter.config.."))
                .or(resideInAPackage("io.kvrouter.common.."))
                .or(resideInAPackage("io.kvrouter.metrics..")))
        .check(classes);
  }
}
