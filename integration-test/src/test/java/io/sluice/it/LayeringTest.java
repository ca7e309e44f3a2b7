package io.sluice.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module layering of docs/DESIGN: common imports nothing of ours; server, coordinator and the
 * Spark client depend on common only and never on each other; nothing imports the tests.
 */
class LayeringTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.sluice");
  }

  @Test
  void commonImportsNothingOfOurs() {
    noClasses().that().resideInAPackage("io.sluice.common..")
        .should().dependOnClassesThat().resideInAnyPackage("io.sluice.server..",
            "io.sluice.coordinator..", "io.sluice.client..", "io.sluice.benchmark..",
            "io.sluice.examples..", "io.sluice.it..")
        .check(classes);
  }

  @Test
  void serverDependsOnCommonOnly() {
    noClasses().that().resideInAPackage("io.sluice.server..")
        .should().dependOnClassesThat().resideInAnyPackage("io.sluice.coordinator..",
            "io.sluice.client..", "io.sluice.benchmark..", "io.sluice.it..")
        .check(classes);
  }

  @Test
  void coordinatorDependsOnCommonOnly() {
    noClasses().that().resideInAPackage("io.sluice.coordinator..")
        .should().dependOnClassesThat().resideInAnyPackage("io.sluice.server..",
            "io.sluice.client..", "io.sluice.benchmark..", "io.sluice.it..")
        .check(classes);
  }

  @Test
  void sparkClientDependsOnCommonOnly() {
    noClasses().that().resideInAPackage("io.sluice.client..")
        .should().dependOnClassesThat().resideInAnyPackage("io.sluice.server..",
            "io.sluice.coordinator..", "io.sluice.benchmark..", "io.sluice.it..")
        .check(classes);
  }
}
