package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A page as a user's browser renders it: headless Chromium (Debian's package, installed with
 * apt-get when missing and the tests run as root) loads the page, runs its scripts, and gives the
 * DOM it ended with.
 */
final class HeadlessChromium {
  private HeadlessChromium() {}

  /** The DOM Chromium rendered from {@code url}, with a fresh profile in {@code profile}. */
  static String dom(String url, Path profile) throws Exception {
    // No background networking: on a closed network Chromium's own connections are refused.
    return run(
        List.of(
            command(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--user-data-dir=" + profile,
            "--dump-dom",
            url),
        120);
  }

  /** Chromium on the PATH, installed from Debian's packages first when missing (as root). */
  private static synchronized String command() throws Exception {
    for (String name : List.of("chromium", "chromium-browser")) {
      if (onPath(name)) {
        return name;
      }
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      fail("headless Chromium is needed: install it with 'sudo apt-get install -y chromium'");
    }
    run(List.of("apt-get", "update", "-q"), 600);
    run(List.of("apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"), 900);
    assertTrue(onPath("chromium"), "apt-get installed no chromium command");
    return "chromium";
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }

  /** Runs a command to its end within {@code seconds}; returns its standard output. */
  private static String run(List<String> command, long seconds) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command));
    pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
    Path out = Files.createTempFile("sluice-command", ".out");
    Path err = Files.createTempFile("sluice-command", ".err");
    try {
      Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(command + " did not end within " + seconds + " s");
      }
      if (p.exitValue() != 0) {
        throw new IOException(command + " exited " + p.exitValue() + ": " + Files.readString(err));
      }
      return Files.readString(out, StandardCharsets.UTF_8);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
