package io.sluice.server.storage;

import io.sluice.common.shuffle.IndexEntry;
import java.nio.file.Path;

/**
 * One generation of a partition's flushed data: a data file and an index file on one disk, or one
 * segment file on HDFS ({@code remoteFile}, with {@code disk} and the local files null), holding
 * the partition's logical bytes from {@code start}. Immutable: an append yields a grown copy.
 *
 * <p>{@code direct}: some of the data file was written with {@code O_DIRECT} ({@link
 * DirectAppender}), so the page cache holds none of it and it is read the same way ({@link
 * DirectRead}). False for generations a restart restored, which are read as any file.
 */
record PartitionGeneration(
    LocalDisk disk,
    Path dataFile,
    Path indexFile,
    org.apache.hadoop.fs.Path remoteFile,
    long start,
    long dataLength,
    int blockCount,
    boolean direct) {

  boolean isRemote() {
    return remoteFile != null;
  }

  /** On a local disk whose reads failed: its blocks are lost. */
  boolean isLostDisk() {
    return disk != null && disk.isUnreadable();
  }

  long end() {
    return start + dataLength;
  }

  long indexLength() {
    return (long) blockCount * IndexEntry.SIZE;
  }

  /** This generation grown by an append of {@code bytes} in {@code blocks}, direct or not. */
  PartitionGeneration grownBy(long bytes, int blocks, boolean directly) {
    return new PartitionGeneration(
        disk,
        dataFile,
        indexFile,
        remoteFile,
        start,
        dataLength + bytes,
        Math.addExact(blockCount, blocks),
        direct || directly);
  }
}
