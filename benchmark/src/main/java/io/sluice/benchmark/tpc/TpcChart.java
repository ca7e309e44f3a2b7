package io.sluice.benchmark.tpc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The report's chart: one group of bars per query, one bar per mode, median wall time (the spread
 * over rounds is in the report's table); for TPC-DS one bar per query, the ratio of the modes.
 */
final class TpcChart {
  private TpcChart() {}

  static void write(TpcSummary summary, String title, Path png) throws IOException {
    CategoryChart chart =
        summary.suite == Suite.TPCDS && summary.compares()
            ? ratios(summary, title)
            : times(summary, title);
    Files.createDirectories(png.toAbsolutePath().getParent());
    BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
  }

  /** TPC-DS's hundred queries: one bar per query, Sluice's median over the built-in shuffle's. */
  private static CategoryChart ratios(TpcSummary summary, String title) {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(1600)
            .height(520)
            .title(title + ": Sluice / built-in, median wall time per query")
            .xAxisTitle("query")
            .yAxisTitle("ratio")
            .build();
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setXAxisLabelRotation(90);
    List<Double> ratios = new ArrayList<>();
    for (String q : summary.queries) {
      ratios.add(summary.ratio(q));
    }
    chart.addSeries("sluice / builtin", summary.queries, ratios);
    return chart;
  }

  private static CategoryChart times(TpcSummary summary, String title) {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(960)
            .height(520)
            .title(title + ": median wall time")
            .xAxisTitle("query")
            .yAxisTitle("median wall time (s)")
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setLabelsFontColorAutomaticEnabled(false);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setDecimalPattern("#0.0");
    for (Mode mode : summary.modes) {
      List<Double> seconds = new ArrayList<>();
      for (String q : summary.queries) {
        seconds.add(summary.get(q, mode).medianMs() / 1000);
      }
      chart.addSeries(mode.label(), summary.queries, seconds);
    }
    return chart;
  }
}
