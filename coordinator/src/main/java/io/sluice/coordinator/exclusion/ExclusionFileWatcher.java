package io.sluice.coordinator.exclusion;

import io.sluice.coordinator.CoordinatorOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps an {@link ExclusionList} in step with {@code coordinator.exclude.file}: one server id per
 * line, blank lines ignored, {@code #} starts a comment. {@link #check()} re-reads the file when
 * its modification time or size changed; a missing file excludes nothing, and a file that cannot be
 * read leaves the previous entries in place.
 */
public final class ExclusionFileWatcher {
  private static final Logger LOG = LoggerFactory.getLogger(ExclusionFileWatcher.class);

  private final Path file;
  private final ExclusionList exclusions;
  private FileStamp lastSeen;

  public ExclusionFileWatcher(Path file, ExclusionList exclusions) {
    this.file = Objects.requireNonNull(file, "file");
    this.exclusions = Objects.requireNonNull(exclusions, "exclusions");
  }

  public Path file() {
    return file;
  }

  /** Re-reads the file if it changed since the last call; returns true when it did. */
  public synchronized boolean check() {
    FileStamp stamp;
    try {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      stamp = new FileStamp(true, attributes.lastModifiedTime().toMillis(), attributes.size());
    } catch (NoSuchFileException e) {
      stamp = FileStamp.MISSING;
    } catch (IOException e) {
      LOG.warn(
          "Cannot read exclusion file {} ("
              + CoordinatorOptions.EXCLUDE_FILE.key()
              + "): {}; keeping its previous entries",
          file,
          e.toString());
      return false;
    }
    if (stamp.equals(lastSeen)) {
      return false;
    }
    if (!stamp.exists()) {
      lastSeen = stamp;
      exclusions.replaceFileEntries(Set.of());
      LOG.info("Exclusion file {} does not exist; no server is excluded by it", file);
      return true;
    }
    Set<String> ids;
    try {
      ids = parse(Files.readAllLines(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      LOG.warn(
          "Cannot read exclusion file {}: {}; keeping its previous entries", file, e.toString());
      return false;
    }
    lastSeen = stamp;
    exclusions.replaceFileEntries(ids);
    LOG.info("Exclusion file {} lists {} server(s): {}", file, ids.size(), ids);
    return true;
  }

  static Set<String> parse(List<String> lines) {
    Set<String> ids = new LinkedHashSet<>();
    for (String line : lines) {
      int comment = line.indexOf('#');
      String id = (comment >= 0 ? line.substring(0, comment) : line).strip();
      if (!id.isEmpty()) {
        ids.add(id);
      }
    }
    return ids;
  }

  private record FileStamp(boolean exists, long modifiedMillis, long size) {
    static final FileStamp MISSING = new FileStamp(false, 0, 0);
  }
}
