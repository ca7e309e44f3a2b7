package io.sluice.benchmark.tpc;

import java.util.List;

/** The implementation of each {@link QuerySpec}. */
final class TpcQueries {
  private static final List<TpcQuery> ALL =
      List.of(
          new AggregateQuery(),
          new JoinQuery(),
          new SortQuery(),
          new SkewJoinQuery(),
          new GroupByKeyQuery(),
          new RepartitionQuery(),
          new PartitionByQuery(),
          new SmallShufflesQuery());

  private TpcQueries() {}

  /** {@code all}, or query names separated by commas, in {@link QuerySpec}'s order or as given. */
  static List<TpcQuery> select(String names) {
    return QuerySpec.select(names).stream().map(TpcQueries::of).toList();
  }

  static TpcQuery of(QuerySpec spec) {
    return ALL.stream()
        .filter(q -> q.spec() == spec)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no implementation of " + spec));
  }
}
