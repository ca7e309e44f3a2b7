package io.sluice.client.spark.read;

/**
 * One block of a partition's data on a server's disk, as its index describes it.
 *
 * @param offset logical offset of the block in the partition's data (the same across all the
 *     partition's files on the server)
 * @param length bytes of the block as stored (compressed)
 * @param uncompressedLength bytes after decompression
 * @param crc32c CRC32C of the stored bytes
 * @param blockId the block's id
 * @param taskAttemptId the map task attempt that wrote it
 */
record IndexedBlock(
    long offset, int length, int uncompressedLength, int crc32c, long blockId, long taskAttemptId) {

  /** The offset just past the block. */
  long end() {
    return offset + length;
  }
}
