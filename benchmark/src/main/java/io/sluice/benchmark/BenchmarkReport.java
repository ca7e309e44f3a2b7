package io.sluice.benchmark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import io.sluice.benchmark.report.BenchRecord;
import io.sluice.benchmark.report.Check;
import io.sluice.benchmark.report.Renderer;
import io.sluice.benchmark.report.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes a benchmark's {@link BenchRecord} into its report, by default {@code
 * docs/benchmarks/<section>.md}: as JSON beside the file, and rendered between {@code <!-- BEGIN
 * name -->} and {@code <!-- END name -->} markers, so that a harness reruns and replaces its
 * section without touching anything else. docs/benchmarks.md links every report.
 */
public final class BenchmarkReport {
  /** Instants (profile windows among the raw figures) written as ISO-8601 text. */
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(
              new SimpleModule().addSerializer(Instant.class, ToStringSerializer.instance));

  private BenchmarkReport() {}

  /**
   * Writes the record as JSON beside the Markdown file ({@code <benchmark>.json} in its directory)
   * and renders it into the file's section of the same name.
   */
  public static void write(Path markdown, BenchRecord record) {
    try {
      Path dir = markdown.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      // Compact: the TPC benchmarks' records hold every query line of every run, megabytes that
      // indentation would nearly double.
      JSON.writeValue(
          dir.resolve(record.benchmark() + ".json").toFile(),
          record.in(markdown.getFileName().toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    render(markdown, record);
  }

  /**
   * How every benchmark ends: prints the record's section and, unless {@code markdown} is null
   * ({@code --output -}), {@link #write}s it.
   */
  public static void publish(BenchRecord record, Path markdown) {
    System.out.println();
    System.out.println(Renderer.markdown(record));
    if (markdown != null) {
      write(markdown, record);
      System.out.println(
          "Wrote the '" + record.benchmark() + "' section of " + markdown + " and its record");
    }
  }

  /** Renders the record into its section of the Markdown file, leaving the rest as it is. */
  public static void render(Path markdown, BenchRecord record) {
    splice(markdown, record.benchmark(), record.title(), Renderer.markdown(record));
  }

  /**
   * The record of a run that ends now, on this machine, of the checkout the benchmark runs in (the
   * bin/bench-*.sh scripts run from the project's root).
   */
  public static BenchRecord record(
      String benchmark,
      String title,
      String command,
      Map<String, String> settings,
      List<Table> tables,
      List<Check> checks,
      Map<String, Object> figures) {
    Path checkout = Path.of("").toAbsolutePath();
    return new BenchRecord(
        benchmark,
        null,
        title,
        now(),
        machine(checkout.resolve("README.md")),
        command,
        commit(checkout),
        settings,
        tables,
        checks,
        List.of(),
        figures);
  }

  private static String now() {
    return ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
  }

  private static void splice(Path markdown, String name, String title, String body) {
    String begin = "<!-- BEGIN " + name + " -->";
    String end = "<!-- END " + name + " -->";
    String section = begin + "\n## " + title + "\n\n" + body.strip() + "\n" + end;
    try {
      String text =
          Files.exists(markdown)
              ? Files.readString(markdown, StandardCharsets.UTF_8)
              : "# "
                  + title
                  + "\n\nRewritten by the command it names; compare ratios within it, "
                  + "not absolute numbers across runs, because the machine is shared and noisy.\n";
      int b = text.indexOf(begin);
      int e = text.indexOf(end);
      String updated =
          b >= 0 && e > b
              ? text.substring(0, b) + section + text.substring(e + end.length())
              : text.stripTrailing() + "\n\n" + section + "\n";
      Files.createDirectories(markdown.toAbsolutePath().getParent());
      Files.writeString(markdown, updated, StandardCharsets.UTF_8);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  /**
   * The commit of the checkout at {@code home} that a run measured, with {@code +changes} when its
   * tracked files differed from it; {@code unknown} outside a Git checkout.
   */
  public static String commit(Path home) {
    try {
      String head = git(home, "rev-parse", "--short=12", "HEAD").strip();
      boolean changed = !git(home, "status", "--porcelain", "--untracked-files=no").isBlank();
      return head.isEmpty() ? "unknown" : head + (changed ? "+changes" : "");
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  private static String git(Path home, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("git", "-C", home.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return p.waitFor() == 0 ? out : "";
  }

  /** Cores, memory, disk, OS and JVM of this machine, in one line. */
  public static String machine(Path near) {
    Runtime rt = Runtime.getRuntime();
    long memBytes =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getTotalMemorySize();
    String disk = "unknown disk";
    try {
      Path dir = near.toAbsolutePath().getParent();
      FileStore store = Files.getFileStore(dir == null ? Path.of(".") : dir);
      disk = store.type() + " " + (store.getTotalSpace() >> 30) + " GiB (" + store.name() + ")";
    } catch (IOException ignored) {
      // leave "unknown disk"
    }
    return rt.availableProcessors()
        + " cores, "
        + (memBytes >> 30)
        + " GiB RAM, "
        + disk
        + ", "
        + System.getProperty("os.name")
        + " "
        + System.getProperty("os.version")
        + ", Java "
        + System.getProperty("java.version");
  }
}
