package io.sluice.it;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints {@link NetworkFaultTest#printViewOnFailure} when one of its cases fails. A class of its
 * own, named by an annotation: the executors load NetworkFaultTest for its jobs' closures, and
 * JUnit is not on their class path.
 */
final class ViewOnFailure implements TestWatcher {
  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    NetworkFaultTest.printViewOnFailure(context.getDisplayName());
  }
}
