package io.sluice.it;

import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Prints {@link NetworkFaultTest#printViewOnFailure} when one of its cases fails, right after the
 * case and before its {@code @AfterEach}, whose probe application would fill the logs' last lines.
 * A class of its own, named by an annotation: the executors load NetworkFaultTest for its jobs'
 * closures, and JUnit is not on their class path.
 */
final class ViewOnFailure implements AfterTestExecutionCallback {
  @Override
  public void afterTestExecution(ExtensionContext context) {
    if (context.getExecutionException().isPresent()) {
      NetworkFaultTest.printViewOnFailure(context.getDisplayName());
    }
  }
}
