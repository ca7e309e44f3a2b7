package io.sluice.client.spark;

import io.sluice.client.spark.write.RowChecksums;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.scheduler.MapStatus$;
import org.apache.spark.storage.BlockManagerId;

/**
 * The writer's calls into Spark whose signatures differ between Spark lines (this copy: Spark 4.x,
 * Scala 2.13). Compiled against Spark 4.0; Spark 4.1 added row-based checksums of a map's output
 * ({@code ShuffleDependency.rowBasedChecksums}) and replaced {@code MapStatus.apply} with a form
 * that carries their aggregate, so on 4.1 and later those calls are bound once, by name, when this
 * class loads ({@link Spark41}).
 */
public final class SparkCompat {
  private SparkCompat() {}

  /**
   * The dependency's row checksums on Spark 4.1 and later when it asks for them; none otherwise.
   */
  public static RowChecksums rowChecksums(ShuffleDependency<?, ?, ?> dependency) {
    if (Spark41.CALLS == null) {
      return RowChecksums.NONE;
    }
    Object[] checksums = Spark41.CALLS.rowBasedChecksums(dependency);
    return checksums.length == 0 ? RowChecksums.NONE : new Spark41.Checksums(checksums);
  }

  public static MapStatus mapStatus(
      BlockManagerId location, long[] partitionLengths, long mapId, RowChecksums checksums) {
    if (Spark41.CALLS == null) {
      return MapStatus$.MODULE$.apply(location, partitionLengths, mapId);
    }
    return Spark41.CALLS.mapStatus(location, partitionLengths, mapId, checksums.value());
  }

  /** Spark 4.1's {@code RowBasedChecksum}, or null on Spark 4.0, which has none. */
  public static Class<?> rowBasedChecksumClass() {
    try {
      return Class.forName(
          "org.apache.spark.shuffle.checksum.RowBasedChecksum",
          false,
          SparkCompat.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      return null;
    }
  }

  /** Spark 4.1's checksum calls, or {@code CALLS == null} on Spark 4.0. */
  static final class Spark41 {
    static final Spark41 CALLS = bind();

    private final MethodHandle rowBasedChecksums;
    private final MethodHandle update;
    private final MethodHandle aggregate;
    private final MethodHandle mapStatus;

    private Spark41(
        MethodHandle rowBasedChecksums,
        MethodHandle update,
        MethodHandle aggregate,
        MethodHandle mapStatus) {
      this.rowBasedChecksums = rowBasedChecksums;
      this.update = update;
      this.aggregate = aggregate;
      this.mapStatus = mapStatus;
    }

    private static Spark41 bind() {
      Class<?> checksum = rowBasedChecksumClass();
      if (checksum == null) {
        return null;
      }
      Class<?> array = checksum.arrayType();
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      try {
        return new Spark41(
            lookup
                .findVirtual(
                    ShuffleDependency.class, "rowBasedChecksums", MethodType.methodType(array))
                .asType(MethodType.methodType(Object[].class, ShuffleDependency.class)),
            lookup
                .findVirtual(
                    checksum,
                    "update",
                    MethodType.methodType(void.class, Object.class, Object.class))
                .asType(
                    MethodType.methodType(void.class, Object.class, Object.class, Object.class)),
            lookup
                .findStatic(
                    checksum,
                    "getAggregatedChecksumValue",
                    MethodType.methodType(long.class, array))
                .asType(MethodType.methodType(long.class, Object[].class)),
            lookup
                .findVirtual(
                    MapStatus$.class,
                    "apply",
                    MethodType.methodType(
                        MapStatus.class,
                        BlockManagerId.class,
                        long[].class,
                        long.class,
                        long.class))
                .bindTo(MapStatus$.MODULE$));
      } catch (NoSuchMethodException | IllegalAccessException e) {
        throw new IllegalStateException(
            "this Spark has row-based shuffle checksums but not the "
                + "calls Sluice's Spark 4 client was built for: "
                + e,
            e);
      }
    }

    Object[] rowBasedChecksums(ShuffleDependency<?, ?, ?> dependency) {
      try {
        return (Object[]) rowBasedChecksums.invokeExact(dependency);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    MapStatus mapStatus(BlockManagerId location, long[] lengths, long mapId, long checksum) {
      try {
        return (MapStatus) mapStatus.invokeExact(location, lengths, mapId, checksum);
      } catch (Throwable t) {
        throw rethrow(t);
      }
    }

    /** One map task's checksums: Spark's own objects, one per partition, updated in place. */
    static final class Checksums implements RowChecksums {
      private final Object[] perPartition;

      Checksums(Object[] perPartition) {
        this.perPartition = perPartition;
      }

      @Override
      public boolean enabled() {
        return true;
      }

      @Override
      public void update(int partition, Object key, Object value) {
        try {
          CALLS.update.invokeExact(perPartition[partition], key, value);
        } catch (Throwable t) {
          throw rethrow(t);
        }
      }

      @Override
      public long value() {
        try {
          return (long) CALLS.aggregate.invokeExact(perPartition);
        } catch (Throwable t) {
          throw rethrow(t);
        }
      }
    }

    private static RuntimeException rethrow(Throwable t) {
      if (t instanceof RuntimeException r) {
        throw r;
      }
      if (t instanceof Error e) {
        throw e;
      }
      throw new IllegalStateException(t);
    }
  }
}
