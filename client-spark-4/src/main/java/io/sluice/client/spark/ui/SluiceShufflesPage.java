package io.sluice.client.spark.ui;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.apache.spark.ui.UIUtils;
import org.apache.spark.ui.WebUIPage;
import org.apache.spark.util.kvstore.KVStore;
import scala.Function0;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.xml.Node;
import scala.xml.Unparsed;

/** The Sluice tab's page on Spark 4 (jakarta servlets, Scala 2.13 sequences). */
final class SluiceShufflesPage extends WebUIPage {
  /**
   * Spark's page frame. Found by name: Spark 4.2 gave it an eighth parameter (a flag, as are the
   * sixth and seventh), so no one signature links on every Spark 4.
   */
  private static final Method HEADER_SPARK_PAGE =
      Arrays.stream(UIUtils.class.getMethods())
          .filter(m -> m.getName().equals("headerSparkPage") && m.getParameterCount() >= 7)
          .findFirst()
          .orElseThrow(
              () -> new IllegalStateException("this Spark has no UIUtils.headerSparkPage"));

  private final SluiceTab tab;
  private final KVStore store;

  SluiceShufflesPage(SluiceTab tab, KVStore store) {
    super("");
    this.tab = tab;
    this.store = store;
  }

  @Override
  @SuppressWarnings("unchecked")
  public Seq<Node> render(HttpServletRequest request) {
    // ShuffleTable escapes every text it writes: the markup goes out as it is.
    Unparsed content = new Unparsed(ShuffleTable.html(ShuffleTable.read(store)));
    Function0<Seq<Node>> body = () -> content;
    Object[] args = new Object[HEADER_SPARK_PAGE.getParameterCount()];
    args[0] = request;
    args[1] = "Sluice shuffles";
    args[2] = body;
    args[3] = tab;
    args[4] = Option.empty();
    Arrays.fill(args, 5, args.length, false);
    try {
      return (Seq<Node>) HEADER_SPARK_PAGE.invoke(null, args);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot frame the Sluice page", e);
    }
  }
}
