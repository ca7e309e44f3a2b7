package io.sluice.client.spark.read;

/**
 * Throws a checked exception from code that cannot declare it: Spark's {@code FetchFailedException}
 * is checked in Java but must leave Scala's {@code Iterator} methods as itself, not wrapped, for
 * the scheduler to see it.
 */
final class Unchecked {
  private Unchecked() {}

  /** Throws {@code t}; declared to return so callers can write {@code throw rethrow(t)}. */
  static RuntimeException rethrow(Throwable t) {
    return Unchecked.<RuntimeException>throwAs(t);
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException throwAs(Throwable t) throws E {
    throw (E) t;
  }
}
