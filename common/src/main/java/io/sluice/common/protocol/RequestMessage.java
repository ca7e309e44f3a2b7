package io.sluice.common.protocol;

/** A message that expects exactly one {@link ResponseMessage} carrying the same request id. */
public interface RequestMessage extends Message {
  /** Chosen by the client, unique per connection; the first header field of every request. */
  long requestId();
}
