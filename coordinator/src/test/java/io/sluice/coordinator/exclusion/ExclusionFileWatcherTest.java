package io.sluice.coordinator.exclusion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExclusionFileWatcherTest {
  @TempDir Path dir;

  private final ExclusionList exclusions = new ExclusionList();

  @Test
  void theFileIsReadAgainWhenItChanges() throws IOException {
    Path file = dir.resolve("exclude");
    Files.writeString(file, "# servers being repaired\nserver-1\n\n  server-2   # disk swap\n");
    ExclusionFileWatcher watcher = new ExclusionFileWatcher(file, exclusions);

    assertTrue(watcher.check());
    assertEquals(
        Map.of("server-1", ExclusionReason.FILE, "server-2", ExclusionReason.FILE),
        exclusions.all());
    assertFalse(watcher.check(), "unchanged file read again");

    Files.writeString(file, "server-3\n");
    Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 5000));
    assertTrue(watcher.check());
    assertEquals(Map.of("server-3", ExclusionReason.FILE), exclusions.all());

    Files.delete(file);
    assertTrue(watcher.check());
    assertEquals(Map.of(), exclusions.all());
  }

  @Test
  void aMissingFileExcludesNothingUntilItAppears() throws IOException {
    Path file = dir.resolve("later");
    ExclusionFileWatcher watcher = new ExclusionFileWatcher(file, exclusions);
    assertTrue(watcher.check());
    assertEquals(Map.of(), exclusions.all());

    Files.writeString(file, "server-9\n");

    assertTrue(watcher.check());
    assertEquals(ExclusionReason.FILE, exclusions.reasonFor("server-9"));
  }

  @Test
  void adminEntriesSurviveAChangeOfTheFile() throws IOException {
    Path file = dir.resolve("exclude");
    Files.writeString(file, "server-1\n");
    ExclusionFileWatcher watcher = new ExclusionFileWatcher(file, exclusions);
    exclusions.exclude("server-7");
    exclusions.decommission("server-8");

    watcher.check();

    assertEquals(
        Map.of(
            "server-1",
            ExclusionReason.FILE,
            "server-7",
            ExclusionReason.ADMIN,
            "server-8",
            ExclusionReason.DECOMMISSION),
        exclusions.all());
  }
}
