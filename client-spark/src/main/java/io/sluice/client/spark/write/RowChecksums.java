package io.sluice.client.spark.write;

/**
 * A map task's order-independent checksum of the records it wrote, per partition, which Spark 4.1
 * and later carry in the {@code MapStatus} when the dependency asks for one: the scheduler compares
 * it across attempts of a map to find a non-deterministic stage and roll its consumers back. Spark
 * computes it over the records as the map produced them, before any map-side combine.
 */
public interface RowChecksums {
  /** No checksum: the Spark line has none, or the dependency does not ask for it. */
  RowChecksums NONE =
      new RowChecksums() {
        @Override
        public boolean enabled() {
          return false;
        }

        @Override
        public void update(int partition, Object key, Object value) {}

        @Override
        public long value() {
          return 0;
        }
      };

  /** False when {@link #update} need not be called. */
  boolean enabled();

  /** Adds one record of {@code partition}. */
  void update(int partition, Object key, Object value);

  /** The map output's checksum, as Spark aggregates the partitions' checksums. */
  long value();
}
