package io.sluice.server.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/** The files this process holds open, from Linux's /proc/self/fd. */
final class OpenFiles {
  private static final Path FDS = Paths.get("/proc/self/fd");

  private OpenFiles() {}

  static boolean supported() {
    return Files.isDirectory(FDS);
  }

  /** Open files whose path lies under {@code dir}. */
  static List<Path> under(Path dir) throws IOException {
    Path root = dir.toRealPath();
    List<Path> open = new ArrayList<>();
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDS)) {
      for (Path fd : fds) {
        Path target;
        try {
          target = Files.readSymbolicLink(fd);
        } catch (IOException e) {
          continue; // closed while listing
        }
        if (target.startsWith(root)) {
          open.add(target);
        }
      }
    }
    return open;
  }
}
