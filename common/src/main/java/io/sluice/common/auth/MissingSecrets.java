package io.sluice.common.auth;

import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigException;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Creates the secret files a daemon's configuration names and that do not exist yet, when the
 * configuration turns authentication on: {@code bin/start-*.sh} run it before the daemon, so that
 * the shipped {@code conf/} starts with authentication on and secrets of its own.
 *
 * <p>{@code MissingSecrets <conf-file> <key>...}: for each key set in the file (e.g. {@code
 * auth.cluster.secret.file}), a missing file is created readable by its owner only, holding 32
 * random bytes in hex, and one line on standard output says so and that the other daemons and
 * drivers of the cluster need the same file. Nothing is written when authentication is off or the
 * file exists.
 */
public final class MissingSecrets {
  private static final int RANDOM_BYTES = 32;

  private MissingSecrets() {}

  public static void main(String[] args) {
    if (args.length < 2) {
      System.err.println("usage: MissingSecrets <conf-file> <key>...");
      System.exit(2);
    }
    try {
      SluiceConf conf =
          ConfigLoader.load(Path.of(args[0]), Map.of(), ConfigDocGenerator.discover());
      for (String created : create(conf, List.of(args).subList(1, args.length))) {
        System.out.println(created);
      }
    } catch (ConfigException e) {
      System.err.println("sluice: " + e.getMessage());
      System.exit(1);
    }
  }

  /** Creates the missing files; returns one line per file created. */
  static List<String> create(SluiceConf conf, List<String> keys) {
    List<String> created = new ArrayList<>();
    if (!conf.get(AuthOptions.ENABLED)) {
      return created;
    }
    for (String key : keys) {
      String path = conf.toMap().get(key);
      if (path == null || path.isBlank() || Files.exists(Path.of(path))) {
        continue;
      }
      write(Path.of(path), key);
      created.add(
          "sluice: created a new secret in "
              + path
              + " ('"
              + key
              + "'); every daemon and "
              + "Spark driver of this cluster that uses it needs the same file: copy it to them "
              + "(docs/security.md)");
    }
    return created;
  }

  private static void write(Path file, String key) {
    byte[] random = new byte[RANDOM_BYTES];
    new SecureRandom().nextBytes(random);
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      // Created with owner-only permissions, never readable by others even for a moment.
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(file, HexFormat.of().formatHex(random) + "\n", StandardCharsets.UTF_8);
    } catch (FileAlreadyExistsException e) {
      // Another daemon starting beside this one created it first: use theirs.
    } catch (IOException e) {
      throw new ConfigException(
          "cannot create the secret file '"
              + file
              + "' that '"
              + key
              + "' names: "
              + e.getMessage()
              + "; create it yourself (at least "
              + SecretFile.MIN_CHARACTERS
              + " characters, chmod 600) or name another path");
    }
  }
}
