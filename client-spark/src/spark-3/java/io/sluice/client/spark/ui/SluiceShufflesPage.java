package io.sluice.client.spark.ui;

import javax.servlet.http.HttpServletRequest;
import org.apache.spark.ui.UIUtils;
import org.apache.spark.ui.WebUIPage;
import org.apache.spark.util.kvstore.KVStore;
import scala.Option;
import scala.collection.Seq;
import scala.xml.Node;
import scala.xml.Unparsed;

/** The Sluice tab's page on Spark 3 (javax servlets, Scala 2.12 sequences). */
final class SluiceShufflesPage extends WebUIPage {
  private final SluiceTab tab;
  private final KVStore store;

  SluiceShufflesPage(SluiceTab tab, KVStore store) {
    super("");
    this.tab = tab;
    this.store = store;
  }

  @Override
  public Seq<Node> render(HttpServletRequest request) {
    // ShuffleTable escapes every text it writes: the markup goes out as it is.
    Unparsed content = new Unparsed(ShuffleTable.html(ShuffleTable.read(store)));
    return UIUtils.headerSparkPage(
        request, "Sluice shuffles", () -> content, tab, Option.empty(), false, false);
  }
}
