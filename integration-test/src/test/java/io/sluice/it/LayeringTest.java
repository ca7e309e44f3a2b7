package io.sluice.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module layering of docs/architecture.md: common imports nothing of ours; the client core
 * depends on common and on nothing of Spark; server and coordinator depend on common only; the
 * Spark client on common and the client core; none depends on another role. The test fixtures
 * import nothing of ours; the test clusters import the daemons but no client; nothing shipped
 * imports either.
 */
class LayeringTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // Test code is not layered: neither the test classes here nor the modules' test jars.
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("io.sluice");
  }

  @Test
  void commonImportsNothingOfOurs() {
    noClasses()
        .that()
        .resideInAPackage("io.sluice.common..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sluice.server..",
            "io.sluice.coordinator..",
            "io.sluice.client..",
            "io.sluice.benchmark..",
            "io.sluice.examples..",
            "io.sluice.it..")
        .check(classes);
  }

  @Test
  void testFixturesImportNothingOfOurs() {
    noClasses()
        .that()
        .resideInAPackage("io.sluice.fixtures..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sluice.common..",
            "io.sluice.server..",
            "io.sluice.coordinator..",
            "io.sluice.client..",
            "io.sluice.benchmark..",
            "io.sluice.examples..",
            "io.sluice.it..",
            "io.sluice.testcluster..")
        .check(classes);
  }

  @Test
  void testClustersImportTheDaemonsButNoClient() {
    noClasses()
        .that()
        .resideInAPackage("io.sluice.testcluster..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sluice.client..", "io.sluice.benchmark..", "io.sluice.examples..", "io.sluice.it..")
        .check(classes);
  }

  @Test
  void nothingShippedImportsTheTestFixturesOrClusters() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.sluice.common..",
            "io.sluice.server..",
            "io.sluice.coordinator..",
            "io.sluice.client..",
            "io.sluice.examples..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.sluice.fixtures..", "io.sluice.testcluster..")
        .check(classes);
  }

  @Test
  void serverDependsOnCommonOnly() {
    noClasses()
        .that()
        .resideInAPackage("io.sluice.server..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sluice.coordinator..",
            "io.sluice.client..",
            "io.sluice.benchmark..",
            "io.sluice.it..")
        .check(classes);
  }

  @Test
  void coordinatorDependsOnCommonOnly() {
    noClasses()
        .that()
        .resideInAPackage("io.sluice.coordinator..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sluice.server..", "io.sluice.client..", "io.sluice.benchmark..", "io.sluice.it..")
        .check(classes);
  }

  @Test
  void clientCoreDependsOnCommonAndNothingOfSpark() {
    noClasses()
        .that()
        .resideInAPackage("io.sluice.client.core..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sluice.client.spark..", "org.apache.spark..", "scala..", "org.apache.hadoop..")
        .check(classes);
  }

  @Test
  void sparkClientDependsOnCommonAndClientCoreOnly() {
    noClasses()
        .that()
        .resideInAPackage("io.sluice.client..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.sluice.server..",
            "io.sluice.coordinator..",
            "io.sluice.benchmark..",
            "io.sluice.it..")
        .check(classes);
  }
}
