package io.sluice.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Writes a benchmark's figures into its own section of {@code docs/benchmarks.md}, between
 * {@code <!-- BEGIN name -->} and {@code <!-- END name -->} markers, so that every harness can rerun
 * and replace its section without touching the others. Each section states the machine and the exact
 * command that produced it.
 */
public final class BenchmarkReport {
  private BenchmarkReport() {}

  /** Replaces (or appends) the section {@code name} of the Markdown file with {@code body}. */
  public static void writeSection(Path markdown, String name, String title, String command,
      String body) {
    String begin = "<!-- BEGIN " + name + " -->";
    String end = "<!-- END " + name + " -->";
    String section = begin + "\n## " + title + "\n\n"
        + "- Run: " + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + "\n"
        + "- Machine: " + machine(markdown) + "\n"
        + "- Command: `" + command + "`\n\n"
        + body.strip() + "\n" + end;
    try {
      String text = Files.exists(markdown)
          ? Files.readString(markdown, StandardCharsets.UTF_8)
          : "# Benchmarks\n\nFigures measured by the harnesses in `benchmark/`. Each section is "
              + "rewritten by the command it names; compare ratios within a section, not absolute "
              + "numbers across runs, because the machine is shared and noisy.\n";
      int b = text.indexOf(begin);
      int e = text.indexOf(end);
      String updated = b >= 0 && e > b
          ? text.substring(0, b) + section + text.substring(e + end.length())
          : text.stripTrailing() + "\n\n" + section + "\n";
      Files.createDirectories(markdown.toAbsolutePath().getParent());
      Files.writeString(markdown, updated, StandardCharsets.UTF_8);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  /** Cores, memory, disk, OS and JVM of this machine, in one line. */
  public static String machine(Path near) {
    Runtime rt = Runtime.getRuntime();
    long memBytes = ((com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
    String disk = "unknown disk";
    try {
      Path dir = near.toAbsolutePath().getParent();
      FileStore store = Files.getFileStore(dir == null ? Path.of(".") : dir);
      disk = store.type() + " " + (store.getTotalSpace() >> 30) + " GiB (" + store.name() + ")";
    } catch (IOException ignored) {
      // leave "unknown disk"
    }
    return rt.availableProcessors() + " cores, " + (memBytes >> 30) + " GiB RAM, " + disk + ", "
        + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
        + System.getProperty("java.version");
  }
}
