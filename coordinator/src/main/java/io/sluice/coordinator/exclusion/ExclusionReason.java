package io.sluice.coordinator.exclusion;

/** Why a server gets no new work although it may be alive and healthy. */
public enum ExclusionReason {
  /** Listed in {@code coordinator.exclude.file}. */
  FILE,
  /** Excluded through {@code POST /admin/exclude}; lasts until {@code /admin/include}. */
  ADMIN,
  /**
   * Decommission requested through {@code POST /admin/decommission}: the server keeps serving what
   * it holds; the mark is forgotten once the server leaves the registry, so it may return later.
   */
  DECOMMISSION
}
