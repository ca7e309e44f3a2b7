package io.sluice.client.spark.driver;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The driver's books of its shuffles, and of the shuffles whose data Spark removed while their
 * dependency lives on.
 *
 * <p>Spark removes a shuffle's data in two ways, both through the shuffle manager's {@code
 * unregisterShuffle}: its {@code ContextCleaner} once nothing references the shuffle's dependency
 * any longer, and (Spark 4.1 and later, with {@code
 * spark.sql.classic.shuffleDependency.fileCleanup.enabled}, on by default in Spark's own tests) the
 * end of each SQL execution, which expects the map stage to run again "if the same dataframe
 * reference is executed again". Then the same shuffle id comes back with the same handle: its map
 * tasks push to servers that no longer know it and ask the driver to relocate, and its readers ask
 * for its locations. So a removed shuffle's book is kept while Spark still holds its dependency
 * (weakly referenced here, so that keeping the book never keeps the dependency), and its first use
 * revives it: every partition moves to newly registered servers, one epoch later, so that requests
 * naming the old epochs get the new locations. A shuffle whose dependency is gone is forgotten.
 *
 * <p>Thread-safe: {@link #live} never waits (the endpoint's event loop asks it); the rest is
 * serialized, so that a removal waits for a revival in progress (which makes remote calls and runs
 * off the event loops) instead of missing its book.
 */
final class ShuffleBooks {
  private record Removed(ShuffleBook book, WeakReference<Object> dependency) {}

  private final Relocator relocator;
  private final Map<Integer, ShuffleBook> live = new ConcurrentHashMap<>();
  private final Map<Integer, WeakReference<Object>> dependencies = new ConcurrentHashMap<>();
  private final Map<Integer, Removed> removed = new ConcurrentHashMap<>();

  ShuffleBooks(Relocator relocator) {
    this.relocator = relocator;
  }

  /** What moves partitions of these shuffles. */
  Relocator relocator() {
    return relocator;
  }

  /** Records a registered shuffle; {@code dependency} is what Spark holds while it may run. */
  synchronized void add(ShuffleBook book, Object dependency) {
    removed.remove(book.shuffleId());
    dependencies.put(book.shuffleId(), new WeakReference<>(dependency));
    live.put(book.shuffleId(), book);
  }

  /** The book of a live shuffle; null for one unknown or removed. */
  ShuffleBook live(int shuffleId) {
    return live.get(shuffleId);
  }

  /**
   * Takes a shuffle out of use: returns its book (null if unknown), whose servers then delete its
   * data. The book stays revivable while Spark holds the shuffle's dependency.
   */
  synchronized ShuffleBook remove(int shuffleId) {
    ShuffleBook book = live.remove(shuffleId);
    WeakReference<Object> dependency = dependencies.remove(shuffleId);
    removed.values().removeIf(r -> r.dependency().get() == null);
    if (book != null && dependency != null && dependency.get() != null) {
      removed.put(shuffleId, new Removed(book, dependency));
    }
    return book;
  }

  /**
   * The book of a live shuffle, or of a removed one that is used again, revived: null for a shuffle
   * unknown or gone.
   */
  synchronized ShuffleBook liveOrRevived(int shuffleId) throws IOException, InterruptedException {
    ShuffleBook book = live.get(shuffleId);
    if (book != null) {
      return book;
    }
    Removed r = removed.get(shuffleId);
    if (r == null || r.dependency().get() == null) {
      removed.remove(shuffleId);
      return null;
    }
    int n = r.book().numPartitions();
    int[] partitions = new int[n];
    int[] epochs = new int[n];
    for (int p = 0; p < n; p++) {
      partitions[p] = p;
      epochs[p] = r.book().current(p).epoch();
    }
    relocator.relocate(
        r.book(), partitions, epochs, "", "Spark removed its data and runs it again");
    removed.remove(shuffleId);
    dependencies.put(shuffleId, r.dependency());
    live.put(shuffleId, r.book());
    return r.book();
  }
}
