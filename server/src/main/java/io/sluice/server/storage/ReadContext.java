package io.sluice.server.storage;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BiConsumer;

/**
 * What reading a partition's files needs beside its snapshot: the HDFS tier (or null), the file
 * opener, the partition's judge of failed reads (which may take a disk out of rotation) and its
 * name for messages. One per {@link PartitionFiles}, shared by its snapshots.
 */
record ReadContext(
    HdfsTier hdfs,
    FileIo io,
    BiConsumer<PartitionGeneration, IOException> readFailed,
    String partition) {

  /**
   * Checks that {@code file} of {@code g} still holds its first {@code end} bytes. A file segment
   * is opened only when it is sent, after the answer's header went out, where a file deleted or
   * truncated under the server could only break the connection; checked here, the reader gets
   * DATA_NOT_FOUND instead.
   */
  void checkReadable(PartitionGeneration g, Path file, long end) throws IOException {
    try {
      checkReadable(file, end);
    } catch (IOException e) {
      readFailed.accept(g, e);
      throw e;
    }
  }

  /** Whether {@code file} holds the {@code end} bytes written to it. */
  static void checkReadable(Path file, long end) throws IOException {
    long size = Files.size(file);
    if (size < end) {
      throw new EOFException(file + " holds " + size + " bytes; " + end + " were written");
    }
  }
}
