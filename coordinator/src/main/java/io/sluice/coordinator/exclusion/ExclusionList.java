package io.sluice.coordinator.exclusion;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The servers an operator has taken out of assignments, from the exclusion file and from admin
 * requests. Reads are lock-free (a snapshot map swapped on every change), because assignments look
 * up every server; changes are rare and serialized. {@link #version()} grows with every change so
 * that cached candidate lists know when to rebuild.
 */
public final class ExclusionList {
  private final Map<String, ExclusionReason> admin = new HashMap<>();
  private Set<String> fromFile = Set.of();
  private volatile Map<String, ExclusionReason> effective = Map.of();
  private volatile long version;

  /** Why {@code serverId} is excluded, or null when it is not. */
  public ExclusionReason reasonFor(String serverId) {
    return effective.get(serverId);
  }

  /** Every excluded server with its reason, by id. */
  public Map<String, ExclusionReason> all() {
    return Collections.unmodifiableMap(new TreeMap<>(effective));
  }

  public long version() {
    return version;
  }

  /** Replaces the entries read from the exclusion file. */
  public synchronized void replaceFileEntries(Set<String> serverIds) {
    fromFile = Set.copyOf(serverIds);
    publish();
  }

  /** Excludes a server until {@link #include}. Returns false when it already was (by the admin). */
  public synchronized boolean exclude(String serverId) {
    boolean changed = admin.put(serverId, ExclusionReason.ADMIN) != ExclusionReason.ADMIN;
    publish();
    return changed;
  }

  /** Marks a server as decommissioning; an admin exclusion of it stays an exclusion. */
  public synchronized void decommission(String serverId) {
    admin.putIfAbsent(serverId, ExclusionReason.DECOMMISSION);
    publish();
  }

  /**
   * Lifts an admin exclusion or decommission mark. An entry of the exclusion file stays: the
   * returned reason says what still excludes the server (null when nothing does).
   */
  public synchronized ExclusionReason include(String serverId) {
    admin.remove(serverId);
    publish();
    return effective.get(serverId);
  }

  /** A server left the registry: a decommission mark has served its purpose. */
  public synchronized void serverRemoved(String serverId) {
    if (admin.remove(serverId, ExclusionReason.DECOMMISSION)) {
      publish();
    }
  }

  private void publish() {
    Map<String, ExclusionReason> next = new HashMap<>(admin);
    for (String id : fromFile) {
      // The file wins over a decommission mark: it is the more lasting of the two.
      next.merge(
          id,
          ExclusionReason.FILE,
          (current, file) -> current == ExclusionReason.ADMIN ? current : file);
    }
    effective = Map.copyOf(next);
    version++;
  }
}
