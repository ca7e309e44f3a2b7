package io.sluice.client.spark;

import org.apache.spark.storage.BlockManagerId;
import scala.Option;

/**
 * Where Spark believes a Sluice shuffle's map output lives: not on the executor that wrote it (its
 * loss must not discard output that sits on the servers), but at one synthetic block manager per
 * shuffle. Spark's scheduler then treats the shuffle's output as one unit: a
 * {@code FetchFailedException} that names this location and no map makes it unregister every map
 * output of the shuffle at once ({@code DAGScheduler} removes the outputs "on the executor" that
 * failed), so that a lost partition costs one re-run of the map stage, never several rounds. The
 * host is unique per shuffle too, because with an external shuffle service Spark removes outputs by
 * host; no executor runs there, so it never attracts tasks for locality.
 */
public final class MapOutputLocation {
  private static final String PREFIX = "sluice-shuffle-";
  /** Spark requires a positive port; nothing listens there. */
  private static final int PORT = 1;

  private MapOutputLocation() {}

  public static BlockManagerId of(int shuffleId) {
    String id = PREFIX + shuffleId;
    return BlockManagerId.apply(id, id, PORT, Option.empty());
  }
}
