package io.sluice.common.protocol;

/**
 * A request about one application's data or lifecycle. On an authenticated connection bound to an
 * application, the server serves it only when {@link #appId} is that application.
 */
public interface ApplicationRequest extends RequestMessage {
  String appId();
}
