package io.sluice.benchmark.tpc;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The job's view of a {@link DataLocation}: through the Hadoop file system its scheme names, with
 * the Spark session's Hadoop configuration, as Spark itself reads and writes the tables there.
 */
final class HadoopFiles {
  private final Configuration conf;

  HadoopFiles(SparkSession spark) {
    this.conf = spark.sparkContext().hadoopConfiguration();
  }

  boolean exists(DataLocation file) {
    try {
      return fileSystem(file).exists(new Path(file.uri()));
    } catch (IOException e) {
      throw new UncheckedIOException("checking " + file, e);
    }
  }

  void writeString(DataLocation file, String text) throws IOException {
    try (OutputStream out = fileSystem(file).create(new Path(file.uri()), true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The bytes of every file under {@code dir}. */
  long bytes(DataLocation dir) throws IOException {
    return fileSystem(dir).getContentSummary(new Path(dir.uri())).getLength();
  }

  private FileSystem fileSystem(DataLocation location) throws IOException {
    return FileSystem.get(URI.create(location.uri()), conf);
  }
}
