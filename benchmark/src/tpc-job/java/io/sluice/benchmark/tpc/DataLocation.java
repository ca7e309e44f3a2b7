package io.sluice.benchmark.tpc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where generated tables live, as a URI that Spark and Hadoop's file systems read: a directory of
 * this machine ({@code file:}), or a cluster's storage ({@code hdfs://}, {@code s3a://}, any scheme
 * whose file system the Spark installation holds). Free of Spark and Hadoop classes, so that the
 * harness can name the tables too.
 *
 * <p>A local directory is written as Hadoop writes one, {@code file://} and the path unencoded:
 * Hadoop's {@code Path} does not decode {@code %20}, so an encoded URI would name another
 * directory.
 */
record DataLocation(String uri) {
  /** A scheme and a path, as a file system's URI has: at least two letters, then ":/". */
  private static final Pattern SCHEME = Pattern.compile("[a-zA-Z][a-zA-Z0-9+.-]+:/.*");

  private static final String FILE = "file:";

  DataLocation {
    while (uri.length() > 1 && uri.endsWith("/") && !uri.endsWith(":/") && !uri.endsWith("://")) {
      uri = uri.substring(0, uri.length() - 1);
    }
  }

  /**
   * {@code value} as given on a command line: a URI when it starts with a scheme, else a directory
   * of this machine, relative to {@code base}. A plain path becomes a {@code file:} URI so that a
   * cluster whose default file system is HDFS does not read it as an HDFS path.
   */
  static DataLocation parse(String value, Path base) {
    if (!SCHEME.matcher(value).matches()) {
      return of(base.resolve(value));
    }
    if (value.contains("?") || value.contains("#")) {
      throw new IllegalArgumentException(
          "--data is '" + value + "': give a directory's URI without a query or fragment");
    }
    return new DataLocation(value);
  }

  /** A directory of this machine. */
  static DataLocation of(Path dir) {
    return new DataLocation("file://" + dir.toAbsolutePath().normalize());
  }

  DataLocation child(String name) {
    return new DataLocation(uri + "/" + name);
  }

  /** Whether the location is on this machine's file system. */
  boolean local() {
    return uri.toLowerCase(Locale.ROOT).startsWith(FILE);
  }

  /** The directory of this machine the location names; only for {@link #local()} ones. */
  Path localPath() {
    if (!local()) {
      throw new IllegalStateException(uri + " is not on this machine's file system");
    }
    String path = uri.substring(FILE.length());
    if (path.startsWith("//")) {
      // file:///dir has an empty authority; file://host/dir names another machine's.
      path = path.substring(2);
      if (!path.startsWith("/")) {
        throw new IllegalStateException(uri + " names a host: not this machine's file system");
      }
    }
    return Path.of(path);
  }

  /** Whether the file exists, for a location on this machine; false for any other. */
  boolean existsLocally() {
    return local() && Files.exists(localPath());
  }

  @Override
  public String toString() {
    return uri;
  }
}
