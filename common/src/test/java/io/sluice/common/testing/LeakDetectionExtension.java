package io.sluice.common.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a leaked buffer while it ran. Registered for every test
 * through JUnit's extension auto-detection (enabled in the parent POM's surefire configuration),
 * and paired with {@code -Dio.netty.leakDetection.level=paranoid} so that every buffer is tracked.
 */
public final class LeakDetectionExtension implements AfterAllCallback {
  static {
    LeakRecorder.install();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    List<String> leaks = LeakRecorder.collect();
    if (!leaks.isEmpty()) {
      fail(
          leaks.size()
              + " Netty buffer leak(s) reported while running "
              + context.getDisplayName()
              + ":\n"
              + String.join("\n\n", leaks));
    }
  }
}
