package io.sluice.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sequential write rates as {@code dd} measures them, 1 MiB writes of zeros to a file in a given
 * directory: to the device ({@code oflag=direct}, past the page cache; where the file system
 * refuses direct I/O, as tmpfs does, through the cache and ending with {@code conv=fdatasync}), or
 * into the page cache (plain writes, no sync: what a process that never syncs sees).
 */
public final class DiskWriteTest {
  private static final Pattern COPIED = Pattern.compile("(\\d+) bytes .*copied, ([0-9.]+) s");

  /** The {@code times} line of the shell that ran dd: its children's user and system CPU. */
  private static final Pattern CHILD_TIMES =
      Pattern.compile("(?m)^(\\d+)m([0-9.]+)s (\\d+)m([0-9.]+)s\\s*\\z");

  /**
   * One measurement: bytes per second, the CPU seconds dd spent (user and system: for writes into
   * the page cache, the kernel's copy into its pages), and the dd command that gave them.
   */
  public record Result(double bytesPerSecond, double cpuSeconds, long bytes, String command) {
    /** CPU seconds per GiB written. */
    public double cpuSecondsPerGib() {
      return cpuSeconds / bytes * (1L << 30);
    }
  }

  private DiskWriteTest() {}

  /** Writes to the device, past the page cache. */
  public static Result device(Path directory, int mebibytes)
      throws IOException, InterruptedException {
    Path file = directory.resolve("dd-write-test");
    try {
      return deviceFile(file, mebibytes);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /**
   * Writes {@code file} past the page cache and leaves it there, so that nothing of it is cached
   * (unless the file system refuses direct I/O); the caller deletes it.
   */
  public static Result deviceFile(Path file, int mebibytes)
      throws IOException, InterruptedException {
    try {
      return dd(file, mebibytes, "oflag=direct");
    } catch (IOException direct) {
      return dd(file, mebibytes, "conv=fdatasync");
    }
  }

  /** Writes into the page cache without waiting for the device. */
  public static Result pageCache(Path directory, int mebibytes)
      throws IOException, InterruptedException {
    Path file = directory.resolve("dd-write-test");
    try {
      return dd(file, mebibytes, "");
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static Result dd(Path file, int mebibytes, String mode)
      throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                "dd",
                "if=/dev/zero",
                "of=" + file.toAbsolutePath(),
                "bs=1M",
                "count=" + mebibytes));
    if (!mode.isEmpty()) {
      command.add(mode);
    }
    // The shell's 'times' reports what dd (its child) spent, once dd has ended.
    List<String> shell =
        new ArrayList<>(List.of("bash", "-c", "\"$@\"; rc=$?; times; exit $rc", "dd-cpu"));
    shell.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(shell).redirectErrorStream(true);
    // dd's summary line must use '.' decimals and English words for the pattern above.
    builder.environment().put("LC_ALL", "C");
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish");
    }
    Matcher m = COPIED.matcher(output);
    Matcher cpu = CHILD_TIMES.matcher(output);
    if (process.exitValue() != 0 || !m.find() || !cpu.find()) {
      throw new IOException(String.join(" ", command) + " failed:\n" + output);
    }
    double seconds = Double.parseDouble(m.group(2));
    long bytes = Long.parseLong(m.group(1));
    double cpuSeconds =
        Integer.parseInt(cpu.group(1)) * 60
            + Double.parseDouble(cpu.group(2))
            + Integer.parseInt(cpu.group(3)) * 60
            + Double.parseDouble(cpu.group(4));
    String shown =
        ("dd if=/dev/zero of=<data dir>/dd-write-test bs=1M count=" + mebibytes + " " + mode)
            .strip();
    return new Result(bytes / seconds, cpuSeconds, bytes, shown);
  }
}
