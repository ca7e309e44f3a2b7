package io.sluice.client.spark.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.util.kvstore.InMemoryStore;
import org.apache.spark.util.kvstore.KVStoreSerializer;
import org.junit.jupiter.api.Test;

class ShuffleTableTest {
  private static final ShuffleSummary THROUGH_SLUICE =
      new ShuffleSummary(
          3,
          8,
          true,
          2,
          List.of("s1@10.0.0.1:9090", "s2@10.0.0.2:9090"),
          null,
          5L << 20,
          10L << 20,
          1,
          2,
          3,
          1,
          4,
          0,
          0);
  private static final ShuffleSummary FALLEN_BACK =
      new ShuffleSummary(
          1,
          4,
          false,
          0,
          List.of(),
          "no server offers tag '<script>alert(1)</script>' & more",
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          2,
          1);

  @Test
  void everyShuffleIsARowAndTextFromEventsIsEscaped() {
    String html = ShuffleTable.html(List.of(FALLEN_BACK, THROUGH_SLUICE));

    assertTrue(html.contains("2 shuffles: 1 through Sluice, 1 with Spark's sort shuffle."), html);
    assertFalse(html.contains("<script>"), html);
    assertTrue(
        html.contains(
            "<td class=\"taken-by\">Spark&#39;s sort shuffle: no server offers "
                + "tag &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39; &amp; more</td>"),
        html);
    assertTrue(
        html.contains(
            "<tr id=\"shuffle-3\"><td class=\"shuffle\">3</td>"
                + "<td class=\"partitions\">8</td><td class=\"taken-by\">Sluice</td>"
                + "<td class=\"copies\">2</td>"
                + "<td class=\"servers\">s1@10.0.0.1:9090, s2@10.0.0.2:9090</td>"
                + "<td class=\"bytes-pushed\" sorttable_customkey=\"5242880\" data-bytes=\"5242880\">"
                + "5.0 MiB</td>"),
        html);
    assertTrue(
        html.contains(
            "<td class=\"fetch-failures\">2</td>" + "<td class=\"map-stage-reruns\">1</td>"),
        html);
  }

  @Test
  void noShuffleYetIsSaidSo() {
    assertEquals(
        "<div id=\"sluice-shuffles\"><p id=\"sluice-summary\">0 shuffles: 0 through "
            + "Sluice, 0 with Spark's sort shuffle.</p></div>",
        ShuffleTable.html(List.of()));
  }

  /** The live UI's store keeps summaries in memory; the history server's on disk, as JSON. */
  @Test
  void summariesAreKeptByShuffleInMemoryAndAsJson() throws Exception {
    try (InMemoryStore store = new InMemoryStore()) {
      store.write(THROUGH_SLUICE);
      store.write(FALLEN_BACK);
      store.write(THROUGH_SLUICE);
      assertEquals(List.of(FALLEN_BACK, THROUGH_SLUICE), ShuffleTable.read(store));
    }
    KVStoreSerializer json = new KVStoreSerializer();
    assertEquals(
        THROUGH_SLUICE, json.deserialize(json.serialize(THROUGH_SLUICE), ShuffleSummary.class));
  }
}
