package io.sluice.server.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the generations an earlier run of this server recorded for one partition (its restart
 * manifest) before they are served again: each must lie in the partition's directory on a
 * configured disk, or on this server's HDFS tier, be named as the partition's files are, follow the
 * one before it, and still hold what was written.
 */
final class PartitionRestore {
  /** What passed: the generations, their local files, and the number the next one is named by. */
  record Restored(
      List<PartitionGeneration> generations,
      List<Path> files,
      int nextGenerationNumber,
      long end,
      int blockCount) {}

  private final DiskManager disks;

  /** Null without an HDFS tier. */
  private final HdfsTier hdfs;

  private final String appId;
  private final int shuffleId;
  private final int partitionId;

  /** The partition, as error messages name it. */
  private final String partition;

  PartitionRestore(
      DiskManager disks,
      HdfsTier hdfs,
      String appId,
      int shuffleId,
      int partitionId,
      String partition) {
    this.disks = disks;
    this.hdfs = hdfs;
    this.appId = appId;
    this.shuffleId = shuffleId;
    this.partitionId = partitionId;
    this.partition = partition;
  }

  /**
   * @throws IOException naming what does not match; nothing is to be restored then
   */
  Restored check(List<RestartManifest.Generation> recorded) throws IOException {
    List<PartitionGeneration> generations = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    long end = 0;
    int blocks = 0;
    int nextName = 0;
    for (RestartManifest.Generation r : recorded) {
      // A gap before a generation is one that was lost on a failed disk before the stop.
      if (r.start() < end || r.dataLength() < 0 || r.blockCount() < 0) {
        throw new IOException(
            "generation "
                + r
                + " of "
                + partition
                + " starts at "
                + r.start()
                + ", before the end of the one before it, "
                + end);
      }
      PartitionGeneration g;
      if (r.isSegment()) {
        g = segment(r);
        nextName =
            Math.max(
                nextName, generationNumber(g.remoteFile().getName(), HdfsTier.SEGMENT_SUFFIX) + 1);
      } else {
        g = local(r);
        files.add(g.dataFile());
        files.add(g.indexFile());
        nextName =
            Math.max(
                nextName, generationNumber(g.dataFile().getFileName().toString(), ".data") + 1);
      }
      generations.add(g);
      end = g.end();
      blocks = Math.addExact(blocks, g.blockCount());
    }
    return new Restored(List.copyOf(generations), files, nextName, end, blocks);
  }

  /** A recorded local generation, once checked: its files in this partition's dir, whole. */
  private PartitionGeneration local(RestartManifest.Generation r) throws IOException {
    LocalDisk disk = disks.diskOf(r.dataFile());
    if (disk == null
        || !r.dataFile().getParent().equals(disks.shuffleDir(disk, appId, shuffleId))
        || !r.indexFile().getParent().equals(r.dataFile().getParent())) {
      throw new IOException(r.dataFile() + " is not a file of " + partition + " on a local dir");
    }
    String dataName = r.dataFile().getFileName().toString();
    if (!r.indexFile().getFileName().toString().equals(dataName.replace(".data", ".index"))) {
      throw new IOException(r.indexFile() + " is not the index file of " + r.dataFile());
    }
    PartitionGeneration g =
        new PartitionGeneration(
            disk,
            r.dataFile(),
            r.indexFile(),
            null,
            r.start(),
            r.dataLength(),
            r.blockCount(),
            false);
    ReadContext.checkReadable(g.dataFile(), g.dataLength());
    ReadContext.checkReadable(g.indexFile(), g.indexLength());
    return g;
  }

  /**
   * A recorded segment, once checked: on this server's HDFS tier, in this partition's directory
   * there, holding its data and index entries.
   */
  private PartitionGeneration segment(RestartManifest.Generation r) throws IOException {
    if (hdfs == null) {
      throw new IOException(
          "segment "
              + r.segment()
              + " of "
              + partition
              + " is on an HDFS tier, and "
              + "this server has none (hdfs.dir)");
    }
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(r.segment());
    String name = file.getName();
    generationNumber(name, HdfsTier.SEGMENT_SUFFIX);
    if (!file.equals(
        hdfs.segmentFile(
            appId,
            shuffleId,
            name.substring(0, name.length() - HdfsTier.SEGMENT_SUFFIX.length())))) {
      throw new IOException(file + " is not a segment of " + partition + " under " + hdfs.root());
    }
    PartitionGeneration g =
        new PartitionGeneration(
            null, null, null, file, r.start(), r.dataLength(), r.blockCount(), false);
    long length = hdfs.length(file);
    if (length != g.dataLength() + g.indexLength()) {
      throw new IOException(
          file
              + " holds "
              + length
              + " bytes; "
              + (g.dataLength() + g.indexLength())
              + " were written");
    }
    return g;
  }

  /** N of a file named {@code <partition>-<N><suffix>}. */
  private int generationNumber(String name, String suffix) throws IOException {
    String prefix = partitionId + "-";
    try {
      if (name.startsWith(prefix) && name.endsWith(suffix)) {
        return Integer.parseInt(name.substring(prefix.length(), name.length() - suffix.length()));
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IOException(name + " is not named as a " + suffix + " file of " + partition);
  }
}
