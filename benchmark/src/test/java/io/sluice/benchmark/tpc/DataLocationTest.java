package io.sluice.benchmark.tpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Where the tables are: URIs as given, plain paths as this machine's directories. */
class DataLocationTest {
  private static final Path BASE = Path.of("/checkout");

  @Test
  void aPlainPathIsThisMachinesDirectoryWrittenAsHadoopWritesIt() {
    // Hadoop's Path does not decode %20: an encoded URI would name another directory.
    DataLocation spaced = DataLocation.parse("my data/tpc", Path.of("/home/a b"));
    assertEquals("file:///home/a b/my data/tpc", spaced.uri());
    assertTrue(spaced.local());
    assertEquals(Path.of("/home/a b/my data/tpc"), spaced.localPath());
    assertEquals(Path.of("/x/y"), DataLocation.parse("file:/x/y/", BASE).localPath());
    assertEquals(Path.of("/x/y"), DataLocation.parse("FILE:///x/y", BASE).localPath());
    // A colon inside a relative path is not a scheme.
    assertEquals("file:///checkout/runs:v2", DataLocation.parse("runs:v2", BASE).uri());
  }

  @Test
  void aClusterUriIsKeptAndItsTablesAreBelowIt() {
    DataLocation hdfs = DataLocation.parse("hdfs://nn:8020/bench/", BASE);
    assertEquals("hdfs://nn:8020/bench", hdfs.uri());
    assertEquals("hdfs://nn:8020/bench/tpcds-sf-1", hdfs.child("tpcds-sf-1").uri());
    assertFalse(hdfs.local());
    assertFalse(hdfs.existsLocally());
    assertThrows(IllegalStateException.class, hdfs::localPath);
    assertThrows(
        IllegalStateException.class, () -> DataLocation.parse("file://host/x", BASE).localPath());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> DataLocation.parse("s3a://b/t?x=1", BASE));
    assertTrue(e.getMessage().contains("without a query"), e.getMessage());
  }
}
