package io.sluice.client.spark.driver;

import io.sluice.client.spark.SluiceRelocationEvent;
import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.protocol.PartitionLocation;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AssignmentAnswer;
import io.sluice.common.shuffle.Retries;
import io.sluice.common.transport.RemoteException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives partitions new locations when writers find theirs unusable ("relocation", what other
 * shuffle services call revive). A partition moves only if the writer's epoch is still its current
 * one, so that the many writers that find one dead server move each partition once. New servers
 * come from the coordinator, excluding servers reported failed in the last {@link #FAILURE_MEMORY}
 * while enough servers remain without them (the coordinator notices a dead server only when its
 * heartbeats stop, and a restarted one is usable again at once), and are registered before any
 * writer learns of them.
 */
final class Relocator {
  private static final Logger LOG = LoggerFactory.getLogger(Relocator.class);

  /** How long a server reported failed is kept out of new locations. */
  static final Duration FAILURE_MEMORY = Duration.ofMinutes(1);

  /** Assignments asked for one move before it fails because servers cannot be registered. */
  static final int MAX_ASSIGNMENT_ROUNDS = 3;

  private final String appId;
  private final CoordinatorClient coordinators;
  private final ServerRegistrar registrar;
  private final int replicas;
  private final List<String> tags;
  private final Duration timeout;
  private final LongSupplier nanoClock;
  private final Consumer<SluiceRelocationEvent> onMove;
  private final Map<String, Long> failedAt = new ConcurrentHashMap<>();

  Relocator(
      String appId,
      CoordinatorClient coordinators,
      ServerRegistrar registrar,
      int replicas,
      List<String> tags,
      Duration timeout,
      LongSupplier nanoClock,
      Consumer<SluiceRelocationEvent> onMove) {
    this.onMove = onMove;
    this.appId = appId;
    this.coordinators = coordinators;
    this.registrar = registrar;
    this.replicas = replicas;
    this.tags = List.copyOf(tags);
    this.timeout = timeout;
    this.nanoClock = nanoClock;
  }

  /**
   * Moves the partitions still at the given epochs and returns every partition's current location.
   *
   * @param failedServerId the server found unusable, or empty when unknown (then the new locations
   *     avoid every server of the old ones, where enough servers remain)
   */
  Map<Integer, PartitionLocation> relocate(
      ShuffleBook book, int[] partitions, int[] epochs, String failedServerId, String reason)
      throws IOException, InterruptedException {
    synchronized (book.relocations()) {
      List<Integer> stale = new ArrayList<>();
      Set<String> oldServers = new LinkedHashSet<>();
      for (int i = 0; i < partitions.length; i++) {
        checkPartition(book, partitions[i]);
        PartitionLocation current = book.current(partitions[i]);
        if (current.epoch() == epochs[i] && !stale.contains(partitions[i])) {
          stale.add(partitions[i]);
          current.servers().forEach(s -> oldServers.add(s.serverId()));
        }
      }
      if (!stale.isEmpty()) {
        if (!failedServerId.isEmpty()) {
          failedAt.put(failedServerId, nanoClock.getAsLong());
        }
        move(
            book,
            stale,
            failedServerId.isEmpty() ? Set.of() : Set.of(failedServerId),
            failedServerId.isEmpty() ? oldServers : Set.of(),
            reason);
      }
      Map<Integer, PartitionLocation> result = new HashMap<>();
      for (int p : partitions) {
        result.put(p, book.current(p));
      }
      return result;
    }
  }

  /**
   * @param failed servers that must not be used: the one the writer found unusable
   * @param avoid servers better not used (those of the old locations when the writer could not tell
   *     which failed)
   */
  private void move(
      ShuffleBook book, List<Integer> stale, Set<String> failed, Set<String> avoid, String reason)
      throws IOException, InterruptedException {
    Set<String> mustAvoid = new LinkedHashSet<>(failed);
    Set<String> excluded = recentFailures();
    excluded.addAll(mustAvoid);
    AssignmentAnswer assignment = null;
    // A server that died a moment ago is still listed by the coordinator until its heartbeats
    // time out: one that cannot be registered counts as failed, and the coordinator is asked again.
    for (int round = 1; assignment == null; round++) {
      Set<String> preferred = new LinkedHashSet<>(excluded);
      preferred.addAll(avoid);
      // Earlier failures are kept out only while enough servers remain: a server that failed a
      // minute ago may have been restarted since (a rolling restart), and the coordinator lists
      // only servers it hears from.
      AssignmentAnswer candidate =
          assignExcludingWhatCanBe(book, stale.size(), List.of(preferred, excluded, mustAvoid));
      Map<String, String> unregistered = register(book, candidate);
      if (unregistered.isEmpty()) {
        assignment = candidate;
      } else if (round == MAX_ASSIGNMENT_ROUNDS) {
        throw new IOException(
            "cannot register shuffle "
                + book.shuffleId()
                + " on its new "
                + "servers "
                + describe(candidate.servers())
                + ": "
                + unregistered);
      } else {
        long now = nanoClock.getAsLong();
        unregistered.keySet().forEach(id -> failedAt.put(id, now));
        excluded.addAll(unregistered.keySet());
        mustAvoid.addAll(unregistered.keySet());
        LOG.info(
            "Shuffle {}: servers {} could not be registered ({}); asking again without them",
            book.shuffleId(),
            unregistered.keySet(),
            unregistered);
      }
    }
    for (int i = 0; i < stale.size(); i++) {
      int p = stale.get(i);
      book.move(p, new PartitionLocation(book.current(p).epoch() + 1, assignment.serversOf(i)));
    }
    LOG.info(
        "Moved {} partitions of shuffle {} to {} ({}); servers kept out: {}",
        stale.size(),
        book.shuffleId(),
        describe(assignment.servers()),
        reason,
        excluded);
    onMove.accept(
        new SluiceRelocationEvent(
            book.shuffleId(),
            stale.size(),
            assignment.servers().stream().map(Object::toString).toList(),
            reason));
  }

  /**
   * Asks for an assignment excluding the first of {@code exclusions} that leaves enough servers;
   * each set holds the next.
   */
  private AssignmentAnswer assignExcludingWhatCanBe(
      ShuffleBook book, int partitions, List<Set<String>> exclusions)
      throws IOException, InterruptedException {
    RemoteException notEnough = null;
    Set<String> tried = null;
    for (Set<String> excluded : exclusions) {
      if (excluded.equals(tried)) {
        continue;
      }
      tried = excluded;
      try {
        return assign(book, partitions, excluded);
      } catch (RemoteException e) {
        if (e.status() != StatusCode.NOT_ENOUGH_SERVERS) {
          throw e;
        }
        notEnough = e;
      }
    }
    throw notEnough;
  }

  /** Registers the shuffle on the assignment's servers; returns those that failed, with why. */
  private Map<String, String> register(ShuffleBook book, AssignmentAnswer assignment)
      throws InterruptedException {
    Map<String, String> failed = new LinkedHashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    registrar
        .registerEach(assignment.servers(), book.shuffleId(), book.numPartitions())
        .forEach(
            (server, registered) -> {
              try {
                registered.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
              } catch (ExecutionException | TimeoutException e) {
                failed.put(server.serverId(), Retries.unwrap(e).toString());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed.put(server.serverId(), "interrupted");
              }
            });
    if (Thread.currentThread().isInterrupted()) {
      throw new InterruptedException("registering shuffle " + book.shuffleId());
    }
    return failed;
  }

  private AssignmentAnswer assign(ShuffleBook book, int partitions, Set<String> excluded)
      throws IOException, InterruptedException {
    return coordinators.getAssignment(
        appId, book.shuffleId(), partitions, replicas, tags, List.copyOf(excluded));
  }

  private Set<String> recentFailures() {
    long now = nanoClock.getAsLong();
    failedAt.values().removeIf(at -> now - at > FAILURE_MEMORY.toNanos());
    return new LinkedHashSet<>(failedAt.keySet());
  }

  private static void checkPartition(ShuffleBook book, int partition) {
    if (partition < 0 || partition >= book.numPartitions()) {
      throw new IllegalArgumentException(
          "partition "
              + partition
              + " is not in shuffle "
              + book.shuffleId()
              + "'s "
              + book.numPartitions()
              + " partitions");
    }
  }

  private static String describe(List<ServerAddress> servers) {
    List<String> ids = new ArrayList<>();
    servers.forEach(s -> ids.add(s.serverId()));
    return ids.toString();
  }
}
