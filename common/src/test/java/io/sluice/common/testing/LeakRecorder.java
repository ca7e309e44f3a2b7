package io.sluice.common.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Records every leak that Netty's {@link ResourceLeakDetector} reports, so that a test run can fail
 * on it instead of leaving a log line nobody reads. Must be installed before the first {@code ByteBuf}
 * class is initialised, because Netty creates its detectors in static initialisers.
 */
public final class LeakRecorder {
  private static final List<String> LEAKS = new ArrayList<>();
  private static boolean installed;

  private LeakRecorder() {}

  public static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
  }

  /** Forces collection of unreachable buffers and makes Netty report them; returns what it reported. */
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
    }
    synchronized (LEAKS) {
      List<String> copy = new ArrayList<>(LEAKS);
      LEAKS.clear();
      return copy;
    }
  }

  private static final class RecordingFactory extends ResourceLeakDetectorFactory {
    @Override
    @SuppressWarnings("deprecation")
    public <T> ResourceLeakDetector<T> newResourceLeakDetector(
        Class<T> resource, int samplingInterval, long maxActive) {
      return new RecordingDetector<>(resource, samplingInterval);
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
      record("LEAK: " + resourceType + " was released by the garbage collector without release()."
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
