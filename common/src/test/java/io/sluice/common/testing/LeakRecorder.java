package io.sluice.common.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;
import java.util.ArrayList;
import java.util.List;

/**
 * Records every leak that Netty's {@link ResourceLeakDetector} reports, so that a test run can fail
 * on it instead of leaving a log line nobody reads. Must be installed before the first {@code
 * ByteBuf} class is initialised, because Netty creates its detectors in static initialisers.
 */
public final class LeakRecorder {
  private static final List<String> LEAKS = new ArrayList<>();

  /** Every detector made, Netty's and those of classes that track their own buffers. */
  private static final List<ResourceLeakDetector<?>> DETECTORS = new ArrayList<>();

  private static boolean installed;

  private LeakRecorder() {}

  public static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
  }

  /**
   * Forces collection of unreachable buffers and makes Netty report them; returns what it reported.
   */
  public static List<String> collect() {
    for (int round = 0; round < 3; round++) {
      System.gc();
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      // Leaks are reported lazily, when a new object of the same kind is tracked.
      for (int i = 0; i < 64; i++) {
        ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        ByteBuf b = PooledByteBufAllocator.DEFAULT.heapBuffer(16);
        ByteBuf c = Unpooled.directBuffer(16);
        a.release();
        b.release();
        c.release();
      }
      // Detectors of classes that track their own buffers (the push pool's blocks and slabs)
      // report only when they track again: make each track something.
      List<ResourceLeakDetector<?>> detectors;
      synchronized (DETECTORS) {
        detectors = new ArrayList<>(DETECTORS);
      }
      for (ResourceLeakDetector<?> detector : detectors) {
        trackOnce(detector);
      }
    }
    synchronized (LEAKS) {
      List<String> copy = new ArrayList<>(LEAKS);
      LEAKS.clear();
      return copy;
    }
  }

  @SuppressWarnings("unchecked")
  private static void trackOnce(ResourceLeakDetector<?> detector) {
    Object probe = new Object();
    ResourceLeakTracker<Object> tracker = ((ResourceLeakDetector<Object>) detector).track(probe);
    if (tracker != null) {
      tracker.close(probe);
    }
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    @SuppressWarnings("deprecation")
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      RecordingDetector<T> detector = new RecordingDetector<>(resource, samplingInterval);
      synchronized (DETECTORS) {
        DETECTORS.add(detector);
      }
      return detector;
    }
  }

  private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
    RecordingDetector(Class<T> resource, int samplingInterval) {
      super(resource, samplingInterval);
    }

    @Override
    protected boolean needReport() {
      return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
      record(
          "LEAK: "
              + resourceType
              + " was released by the garbage collector without release()."
              + records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
      record("LEAK: " + resourceType + " was released by the garbage collector without release().");
    }

    private static void record(String leak) {
      System.err.println(leak);
      synchronized (LEAKS) {
        LEAKS.add(leak);
      }
    }
  }
}
