package io.kvrouter.preprocess;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The tokenizer and template packages are pure and synchronous: no Vert.x, no Netty. */
class PurePackagesTest {

  @Test
  void tokenizerAndTemplateDoNotUseVertxOrNetty() {
    JavaClasses classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(
                "io.kvrouter.preprocess.tokenizer", "io.kvrouter.preprocess.template");
    noClasses()
        .that()
        .resideInAnyPackage("io.kvrouter.preprocess.tokenizer..", "io.kvrouter.preprocess.template..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.vertx..", "io.netty..")
        .check(classes);
  }
}
