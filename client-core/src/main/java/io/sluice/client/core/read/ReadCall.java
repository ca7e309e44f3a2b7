package io.sluice.client.core.read;

import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import java.io.IOException;
import java.util.function.Supplier;

/** One request of a location's reader, re-created with a fresh id on each retry. */
final class ReadCall<R extends ResponseMessage> {
  @FunctionalInterface
  interface AnswerHandler<R> {
    /** Handles a successful answer; the caller releases it afterwards. */
    void handle(R answer) throws IOException;
  }

  final LocationReader read;
  final String what;
  final Supplier<RequestMessage> request;
  final Class<R> type;
  final AnswerHandler<R> handler;

  /** Budget held until the answer arrives. */
  long reserved;

  /** Its server was given up on, or the reader stopped: its answer is released unread. */
  boolean stale;

  int retries;
  int timeouts;

  ReadCall(
      LocationReader read,
      String what,
      Supplier<RequestMessage> request,
      Class<R> type,
      AnswerHandler<R> handler) {
    this.read = read;
    this.what = what;
    this.request = request;
    this.type = type;
    this.handler = handler;
  }

  /**
   * The answer's size, guessed ahead, to be held in the budget by {@code Pipeline.send} until the
   * answer arrives; retries do not add it again.
   */
  ReadCall<R> reserving(long bytes) {
    reserved = bytes;
    return this;
  }
}
