package io.sluice.conformance;

import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.Row;

/** A TPC-DS query's rows, or the first line of the error it failed with. */
record TpcdsOutcome(List<Row> rows, String error) {
  /** Null if {@code other} is the same outcome ({@link Answers}); otherwise how it differs. */
  String difference(TpcdsOutcome other) {
    if (error != null || other.error != null) {
      return Objects.equals(error, other.error)
          ? null
          : "expected "
              + (error != null ? "the error " + error : rows.size() + " rows")
              + ", found "
              + (other.error != null ? "the error " + other.error : other.rows.size() + " rows");
    }
    return Answers.difference(rows, other.rows);
  }

  @Override
  public String toString() {
    return error != null ? "error " + error : rows.size() + " rows";
  }
}
