package io.sluice.client.spark;

import org.apache.spark.SparkEnv;
import org.apache.spark.storage.BlockManagerId;
import scala.Option;

/**
 * Where Spark believes a Sluice shuffle's map output lives, chosen for what Spark's scheduler does
 * with a {@code MapStatus}'s {@link BlockManagerId}:
 *
 * <ul>
 *   <li><b>Executor id: one synthetic id per shuffle</b> ({@code sluice-shuffle-<id>}). Spark
 *       removes map outputs by executor id when an executor is lost or a fetch fails ({@code
 *       MapOutputTrackerMaster.removeOutputsOnExecutor}). No real executor has this id, so losing
 *       one removes no Sluice output (the output is on the servers), and a {@code
 *       FetchFailedException} naming the id (see {@link #ofLostShuffle}) removes exactly this
 *       shuffle's outputs: a lost partition costs one re-run of the map stage.
 *   <li><b>Host: the host of the executor that ran the map task</b>, as the built-in shuffle
 *       reports it. Spark turns map-output hosts into the preferred locations of the tasks that
 *       read them ({@code MapOutputTrackerMaster.getPreferredLocationsForShuffle} for reduce
 *       partitions, {@code getMapLocation} for adaptive execution's local shuffle reads), and its
 *       delay scheduling holds a task back for {@code spark.locality.wait} when its preferred host
 *       has pending work; a host where no executor runs can never be satisfied (in local mode the
 *       task then waits for ever). A real executor host gives Sluice's reads the scheduling the
 *       built-in shuffle's get.
 *   <li><b>Topology info: whether the readers need the driver</b>. {@code sluice-first-locations}
 *       when the attempt wrote only to its partitions' epoch-0 locations, those of the shuffle
 *       handle: a reduce task all of whose counted map outputs say so reads the handle's locations
 *       without asking the driver for newer ones. Absent otherwise, so that anything unmarked is
 *       read the careful way. Spark's scheduler does not look at this field of a map output.
 * </ul>
 *
 * Spark also removes outputs by host: when a standalone worker is lost ({@code
 * DAGScheduler.handleWorkerRemoved}) the maps that ran on that host run again, as they would with
 * Spark's external shuffle service; and on a fetch failure with {@code
 * spark.files.fetchFailure.unRegisterOutputOnHost}, which {@link ConflictingSettings} turns off.
 * docs/architecture.md ("Where Spark thinks the output is") has the whole reasoning.
 */
public final class MapOutputLocation {
  private static final String PREFIX = "sluice-shuffle-";

  /** Spark requires a positive port; nothing listens there. */
  private static final int PORT = 1;

  private static final String FIRST_LOCATIONS_ONLY = "sluice-first-locations";

  private MapOutputLocation() {}

  /**
   * The location of a map output of {@code shuffleId} written on this executor.
   *
   * @param firstLocationsOnly the attempt wrote only to its partitions' epoch-0 locations
   */
  public static BlockManagerId ofMapOutput(int shuffleId, boolean firstLocationsOnly) {
    return ofMapOutput(
        shuffleId, SparkEnv.get().blockManager().blockManagerId().host(), firstLocationsOnly);
  }

  public static BlockManagerId ofMapOutput(int shuffleId, String host, boolean firstLocationsOnly) {
    return BlockManagerId.apply(
        PREFIX + shuffleId,
        host,
        PORT,
        firstLocationsOnly ? Option.apply(FIRST_LOCATIONS_ONLY) : Option.empty());
  }

  /** Whether the map output at {@code location} was written to epoch-0 locations alone. */
  public static boolean wroteToFirstLocationsOnly(BlockManagerId location) {
    Option<String> topology = location.topologyInfo();
    return topology.isDefined() && FIRST_LOCATIONS_ONLY.equals(topology.get());
  }

  /**
   * The location a {@code FetchFailedException} names when a partition of {@code shuffleId} is
   * lost: the shuffle's executor id, so that Spark removes all of its map outputs and no other's,
   * and a host of the same synthetic name, so that nothing Spark does by host (excluding a host
   * after fetch failures, {@code spark.excludeOnFailure.application.fetchFailure.enabled}) hits a
   * real one.
   */
  public static BlockManagerId ofLostShuffle(int shuffleId) {
    String id = PREFIX + shuffleId;
    return BlockManagerId.apply(id, id, PORT, Option.empty());
  }
}
