package io.sluice.benchmark.tpc;

import java.util.ArrayList;
import java.util.List;

/** The queries of the benchmark, in the order they run. */
final class TpcQueries {
  static final List<TpcQuery> ALL = List.of(new AggregateQuery(), new JoinQuery(),
      new SortQuery(), new SkewJoinQuery(), new GroupByKeyQuery(), new RepartitionQuery());

  private TpcQueries() {}

  /** {@code all}, or query names separated by commas. */
  static List<TpcQuery> select(String names) {
    if (names.equals("all")) {
      return ALL;
    }
    List<TpcQuery> selected = new ArrayList<>();
    for (String name : names.split(",")) {
      selected.add(ALL.stream().filter(q -> q.name().equals(name.trim())).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("unknown query '" + name + "'; known: "
              + ALL.stream().map(TpcQuery::name).toList())));
    }
    return selected;
  }
}
