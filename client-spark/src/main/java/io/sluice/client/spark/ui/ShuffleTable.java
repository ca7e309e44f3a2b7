package io.sluice.client.spark.ui;

import io.sluice.common.text.ByteSizes;
import io.sluice.common.text.Html;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.util.kvstore.KVStore;
import org.apache.spark.util.kvstore.KVStoreIterator;

/**
 * The Sluice tab's content: a line on how many shuffles Sluice took, and a table with a row per
 * shuffle. Markup in Spark's own UI classes; every text from an event is escaped.
 */
final class ShuffleTable {
  private ShuffleTable() {}

  /** Every shuffle in the store, by id. */
  static List<ShuffleSummary> read(KVStore store) {
    List<ShuffleSummary> shuffles = new ArrayList<>();
    try (KVStoreIterator<ShuffleSummary> it =
        store.view(ShuffleSummary.class).closeableIterator()) {
      while (it.hasNext()) {
        shuffles.add(it.next());
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the Sluice shuffles from the status store", e);
    }
    return shuffles;
  }

  static String html(List<ShuffleSummary> shuffles) {
    long sluice = shuffles.stream().filter(ShuffleSummary::sluice).count();
    StringBuilder out = new StringBuilder();
    out.append("<div id=\"sluice-shuffles\">");
    out.append("<p id=\"sluice-summary\">")
        .append(shuffles.size())
        .append(shuffles.size() == 1 ? " shuffle: " : " shuffles: ")
        .append(sluice)
        .append(" through Sluice, ")
        .append(shuffles.size() - sluice)
        .append(" with Spark's sort shuffle.</p>");
    if (shuffles.isEmpty()) {
      return out.append("</div>").toString();
    }
    out.append(
        "<table class=\"table table-bordered table-sm table-striped sortable\">" + "<thead><tr>");
    for (String column :
        List.of(
            "Shuffle",
            "Partitions",
            "Taken by",
            "Copies",
            "Servers",
            "Bytes pushed",
            "Bytes read",
            "Push retries",
            "Fetch retries",
            "Relocations",
            "Relocated partitions",
            "Replica reads",
            "Fetch failures",
            "Map stage re-runs")) {
      out.append("<th>").append(column).append("</th>");
    }
    out.append("</tr></thead><tbody>");
    for (ShuffleSummary s : shuffles) {
      out.append("<tr id=\"shuffle-").append(s.shuffleId()).append("\">");
      cell(out, "shuffle", Integer.toString(s.shuffleId()));
      cell(out, "partitions", Integer.toString(s.partitions()));
      cell(
          out,
          "taken-by",
          s.sluice()
              ? "Sluice"
              : "Spark's sort shuffle: " + (s.fallbackReason() == null ? "" : s.fallbackReason()));
      cell(out, "copies", Integer.toString(s.copies()));
      cell(out, "servers", String.join(", ", s.servers()));
      bytes(out, "bytes-pushed", s.bytesPushed());
      bytes(out, "bytes-read", s.bytesRead());
      cell(out, "push-retries", Long.toString(s.pushRetries()));
      cell(out, "fetch-retries", Long.toString(s.fetchRetries()));
      cell(out, "relocations", Integer.toString(s.relocations()));
      cell(out, "relocated-partitions", Integer.toString(s.relocatedPartitions()));
      cell(out, "replica-reads", Long.toString(s.replicaReads()));
      cell(out, "fetch-failures", Integer.toString(s.fetchFailures()));
      cell(out, "map-stage-reruns", Integer.toString(s.mapStageReruns()));
      out.append("</tr>");
    }
    return out.append("</tbody></table></div>").toString();
  }

  private static void cell(StringBuilder out, String name, String text) {
    out.append("<td class=\"").append(name).append("\">").append(Html.escape(text)).append("</td>");
  }

  /** Shown in binary units; the exact count sorts the column (Spark's sorttable) and is kept. */
  private static void bytes(StringBuilder out, String name, long bytes) {
    out.append("<td class=\"")
        .append(name)
        .append("\" sorttable_customkey=\"")
        .append(bytes)
        .append("\" data-bytes=\"")
        .append(bytes)
        .append("\">")
        .append(ByteSizes.binary(bytes))
        .append("</td>");
  }
}
