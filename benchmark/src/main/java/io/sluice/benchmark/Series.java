package io.sluice.benchmark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** The values one measurement took over the rounds. */
public final class Series {
  private final List<Double> values = new ArrayList<>();

  public void add(double value) {
    values.add(value);
  }

  /** The values in the order measured. */
  public List<Double> values() {
    return List.copyOf(values);
  }

  public boolean isEmpty() {
    return values.isEmpty();
  }

  public double median() {
    List<Double> sorted = sorted();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  public double min() {
    return sorted().get(0);
  }

  public double max() {
    return sorted().get(values.size() - 1);
  }

  /** The value added last. */
  public double last() {
    if (values.isEmpty()) {
      throw new IllegalStateException("no values measured");
    }
    return values.get(values.size() - 1);
  }

  /** "median [min-max]" with each number in {@code format}; the median alone for one value. */
  public String describe(String format) {
    String median = String.format(Locale.ROOT, format, median());
    return values.size() == 1
        ? median
        : median
            + " ["
            + String.format(Locale.ROOT, format, min())
            + "-"
            + String.format(Locale.ROOT, format, max())
            + "]";
  }

  private List<Double> sorted() {
    if (values.isEmpty()) {
      throw new IllegalStateException("no values measured");
    }
    List<Double> copy = new ArrayList<>(values);
    Collections.sort(copy);
    return copy;
  }
}
