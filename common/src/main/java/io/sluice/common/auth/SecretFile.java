package io.sluice.common.auth;

import io.sluice.common.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Reads a secret from a file named in configuration (a secret never appears on a command line or in
 * a configuration file itself). The file holds the secret as text, at least 32 characters; a
 * trailing line break is ignored. A file that every user of the machine may read is refused.
 */
public final class SecretFile {
  /** The fewest characters a secret file must hold. */
  public static final int MIN_CHARACTERS = 32;

  private SecretFile() {}

  /**
   * @param key the configuration key that named the file, for error messages
   */
  public static Secret read(String path, String key) {
    Path file = Path.of(path);
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new ConfigException("'" + key + "' names '" + path + "', which is not a readable file");
    }
    try {
      if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
        if (permissions.contains(PosixFilePermission.OTHERS_READ)) {
          throw new ConfigException(
              "'"
                  + key
                  + "' names '"
                  + path
                  + "', which every user of this "
                  + "machine can read: restrict it (chmod 600 "
                  + path
                  + ")");
        }
      }
      String text = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (text.length() < MIN_CHARACTERS) {
        throw new ConfigException(
            "'"
                + key
                + "' names '"
                + path
                + "', which holds "
                + text.length()
                + " characters; a secret needs at least "
                + MIN_CHARACTERS
                + " (for example: head -c 32 /dev/urandom | base64 > "
                + path
                + ")");
      }
      return Secret.of(text.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new ConfigException("cannot read '" + key + "' (" + path + "): " + e.getMessage());
    }
  }
}
