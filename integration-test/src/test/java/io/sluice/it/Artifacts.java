package io.sluice.it;

import io.sluice.fixtures.ProjectRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Jars the build produced before the integration tests run. */
final class Artifacts {
  private Artifacts() {}

  static Path shadedClientJar() throws IOException {
    return find(ProjectRoot.get().resolve("client-spark/target"), "-shaded.jar");
  }

  /** The distribution tarball of the dist module. */
  static Path distribution() throws IOException {
    return find(ProjectRoot.get().resolve("dist/target"), "-bin.tar.gz");
  }

  static Path sparkHome() {
    return ProjectRoot.get().resolve("examples/target/spark-home");
  }

  static Path testClasses() {
    return ProjectRoot.get().resolve("integration-test/target/test-classes");
  }

  private static Path find(Path dir, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(suffix))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "no *"
                          + suffix
                          + " in "
                          + dir
                          + ": run the tests with `mvn verify` so that the jars are packaged first"));
    }
  }
}
