package io.sluice.client.spark;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
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
 *   <li><b>Topology info: whether the readers need the driver, and which servers to read last</b>.
 *       {@code sluice-first-locations} when the attempt wrote only to its partitions' epoch-0
 *       locations, those of the shuffle handle: a reduce task all of whose counted map outputs say
 *       so reads the handle's locations without asking the driver for newer ones; absent otherwise,
 *       so that anything unmarked is read the careful way. {@code sluice-slow=<ids>} names the
 *       servers the writing executor had found slow in the minute before the attempt ended ({@code
 *       PushPace#foundSlowRecently}): every reduce task of the shuffle, in whatever executor,
 *       starts the chains they head at the next server. The two are joined with {@code ;}. Spark's
 *       scheduler does not look at this field of a map output.
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

  private static final String SLOW = "sluice-slow=";

  /** Server ids carried in the topology info, which these would break apart. */
  private static final Pattern SEPARATORS = Pattern.compile("[;,]");

  private MapOutputLocation() {}

  /**
   * The location of a map output of {@code shuffleId} written on this executor.
   *
   * @param firstLocationsOnly the attempt wrote only to its partitions' epoch-0 locations
   */
  public static BlockManagerId ofMapOutput(
      int shuffleId, boolean firstLocationsOnly, Collection<String> slowServers) {
    return ofMapOutput(
        shuffleId,
        SparkEnv.get().blockManager().blockManagerId().host(),
        firstLocationsOnly,
        slowServers);
  }

  /**
   * @param slowServers ids of servers the executor found slow lately; an id holding {@code ;} or
   *     {@code ,} is left out
   */
  public static BlockManagerId ofMapOutput(
      int shuffleId, String host, boolean firstLocationsOnly, Collection<String> slowServers) {
    List<String> marks = new ArrayList<>();
    if (firstLocationsOnly) {
      marks.add(FIRST_LOCATIONS_ONLY);
    }
    List<String> slow =
        slowServers.stream().filter(id -> !SEPARATORS.matcher(id).find()).sorted().toList();
    if (!slow.isEmpty()) {
      marks.add(SLOW + String.join(",", slow));
    }
    return BlockManagerId.apply(
        PREFIX + shuffleId,
        host,
        PORT,
        marks.isEmpty() ? Option.empty() : Option.apply(String.join(";", marks)));
  }

  /** Whether the map output at {@code location} was written to epoch-0 locations alone. */
  public static boolean wroteToFirstLocationsOnly(BlockManagerId location) {
    return marks(location).contains(FIRST_LOCATIONS_ONLY);
  }

  /** The servers the executor that wrote the map output at {@code location} had found slow. */
  public static Set<String> slowServers(BlockManagerId location) {
    Set<String> slow = new HashSet<>();
    for (String mark : marks(location)) {
      if (mark.startsWith(SLOW)) {
        for (String id : mark.substring(SLOW.length()).split(",")) {
          if (!id.isEmpty()) {
            slow.add(id);
          }
        }
      }
    }
    return slow;
  }

  private static List<String> marks(BlockManagerId location) {
    Option<String> topology = location.topologyInfo();
    return topology.isDefined() ? List.of(topology.get().split(";")) : List.of();
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
