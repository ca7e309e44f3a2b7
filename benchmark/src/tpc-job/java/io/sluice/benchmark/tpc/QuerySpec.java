package io.sluice.benchmark.tpc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The benchmark's queries by name and description, in the order they run. Free of Spark classes, so
 * that the harness (which runs without Spark on its class path) can name and describe them; the job
 * finds each one's implementation in {@link TpcQueries}.
 */
enum QuerySpec {
  AGGREGATE(
      "aggregate",
      "lineitem grouped by l_orderkey: sums, count, min/max dates, average "
          + "discount (hash aggregation; the lines of an order lie in different input partitions, so "
          + "the map-side partial aggregation saves little)"),
  JOIN("join", "lineitem join orders on orderkey, all columns (sort-merge join, broadcast off)"),
  SORT(
      "sort",
      "lineitem ordered by (l_extendedprice, l_orderkey, l_linenumber), all columns "
          + "(range partitioning); order checked within and across output partitions"),
  SKEW_JOIN(
      "skewjoin",
      "lineitem join skewdim on l_skewkey (30% of rows on 3 keys), all "
          + "columns, AQE skew join on (hot partitions read as map ranges)"),
  GROUP_BY_KEY(
      "groupbykey",
      "RDD groupByKey of 12M small (long, int) records per SF, ~16 per "
          + "key, Kryo, no map-side combine"),
  REPARTITION(
      "repartition", "RDD repartition of 1M wide rows (1 KiB of lineitem .tbl text) per " + "SF"),
  PARTITION_BY(
      "partitionby",
      "RDD partitionBy (hash partitioner) of 5M (long, 100 random bytes) "
          + "records per SF, Kryo: incompressible mid-sized records"),
  SMALL_SHUFFLES(
      "smallshuffles",
      SmallShufflesQuery.SHUFFLES
          + " SQL repartitions by key of "
          + "50,000 (long, 64-character hash) rows, about 4 MiB each, one after the other, whatever "
          + "the scale: the fixed cost of a shuffle");

  private final String label;
  private final String description;

  QuerySpec(String label, String description) {
    this.label = label;
    this.description = description;
  }

  String label() {
    return label;
  }

  String description() {
    return description;
  }

  /** {@code all}, or query names separated by commas. */
  static List<QuerySpec> select(String names) {
    if (names.equals("all")) {
      return List.of(values());
    }
    List<QuerySpec> selected = new ArrayList<>();
    for (String name : names.split(",")) {
      selected.add(
          Arrays.stream(values())
              .filter(q -> q.label.equals(name.trim()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "unknown query '"
                              + name
                              + "'; known: "
                              + Arrays.stream(values()).map(QuerySpec::label).toList())));
    }
    return selected;
  }
}
