package io.sluice.it;

import java.nio.file.Files;
import java.nio.file.Path;

/** The checkout's root directory, where bin/, conf/ and the modules' target/ folders are. */
final class ProjectRoot {
  private ProjectRoot() {}

  static Path get() {
    String configured = System.getProperty("sluice.project.root", "");
    if (!configured.isBlank() && Files.isDirectory(Path.of(configured, "bin"))) {
      return Path.of(configured).toAbsolutePath();
    }
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("bin"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("cannot find the project root (a directory with bin/)");
    }
    return dir;
  }
}
