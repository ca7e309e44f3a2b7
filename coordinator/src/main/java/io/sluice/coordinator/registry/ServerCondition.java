package io.sluice.coordinator.registry;

/**
 * What a registered server may do, as the coordinator sees it. Only ACTIVE servers get new work.
 */
public enum ServerCondition {
  /** Heart-beating, healthy, not excluded: takes new partitions. */
  ACTIVE,
  /**
   * Reports that it is decommissioning, or an admin asked for it: keeps serving, takes nothing new.
   */
  DECOMMISSIONING,
  /** Reports itself unhealthy, or that none of its disks is healthy. */
  UNHEALTHY,
  /** Listed in the exclusion file or excluded by an admin request. */
  EXCLUDED,
  /** Missed heartbeats for the timeout; about to be dropped from the registry. */
  STALE;

  public boolean takesNewWork() {
    return this == ACTIVE;
  }
}
