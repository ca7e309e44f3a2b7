package io.sluice.server.storage;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Recursive deletion that never follows symbolic links (a link is deleted, not its target). */
final class DirectoryTrees {
  /** A flush may create a file in a directory while it is being deleted; a few passes settle it. */
  private static final int PASSES = 3;

  private DirectoryTrees() {}

  /** Deletes {@code root} and everything below it; a missing {@code root} is not an error. */
  static void deleteRecursively(Path root) throws IOException {
    for (int pass = 1; ; pass++) {
      try {
        deleteOnce(root);
        return;
      } catch (DirectoryNotEmptyException e) {
        if (pass == PASSES) {
          throw e;
        }
      }
    }
  }

  private static void deleteOnce(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw e;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
            if (e != null && !(e instanceof NoSuchFileException)) {
              throw e;
            }
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
