package io.sluice.common.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Tells {@code bin/start-*.sh} that a daemon is serving: once its ports listen, the daemon writes
 * them to the file the script named in the system property {@value #PROPERTY}, and the script,
 * which waits for that file (or for the process to end), prints that it started only then. The file
 * is written whole or not at all.
 */
public final class ReadyFile {
  /** The system property that names the file; without it nothing is written. */
  public static final String PROPERTY = "sluice.ready.file";

  private ReadyFile() {}

  /** Writes {@code port <port> http.port <httpPort>} to the file, if the script asked for one. */
  public static void announce(int port, int httpPort) throws IOException {
    String file = System.getProperty(PROPERTY);
    if (file == null || file.isBlank()) {
      return;
    }
    Path target = Path.of(file);
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    Files.writeString(
        tmp, "port " + port + ", http.port " + httpPort + "\n", StandardCharsets.UTF_8);
    try {
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
