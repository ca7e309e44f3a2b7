package io.sluice.common.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.common.protocol.MessageEncoder;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.HandshakeResponse;
import java.io.Closeable;
import java.io.IOException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection to a server. Thread-safe: many tasks share it, and requests are pipelined (any
 * number outstanding, answered in any order, matched by request id). Obtain one from a {@link
 * TransportClientFactory}, which also replaces it when it breaks.
 */
public final class TransportClient implements Closeable {
  private static final AtomicLong REQUEST_IDS = new AtomicLong();

  private static final long MIN_SWEEP_MILLIS = 10;
  private static final long MAX_SWEEP_MILLIS = 1000;

  private final Channel channel;
  private final BatchingWriter writer;
  private final long timeoutMillis;
  private final Map<Long, Pending<?>> pending = new ConcurrentHashMap<>();

  /** How long the peer may stay silent while requests are outstanding; 0 when nobody is told. */
  private final long silenceNanos;

  /** The peer's liveness, told of silences and asked for doubt; null when nobody watches. */
  private final PeerLiveness.Watch watch;

  // Event loop only: set by every read from the socket, cleared by the sweep.
  private boolean heard;
  private long quietSinceNanos = System.nanoTime();

  // Event loop only: reset by a byte from the peer or nothing outstanding, not by our sends.
  private long unheardSinceNanos = System.nanoTime();

  // Written by the sweep on the event loop, read by any thread: see isSilent.
  private volatile boolean silent;
  private long unsentBytes;
  private volatile String serverId = "";
  private volatile int protocolVersion;

  /** The largest frame the server accepts, from its handshake; 0 when it did not say. */
  private volatile int serverMaxFrameSize;

  TransportClient(Channel channel, Duration requestTimeout) {
    this(channel, requestTimeout, Duration.ZERO, null);
  }

  /**
   * @param silence how long the peer may send nothing while requests to it are outstanding before
   *     {@code watch} is told (again after each such stretch); zero for never
   * @param watch the peer's liveness, told on the event loop; null for none
   */
  TransportClient(
      Channel channel, Duration requestTimeout, Duration silence, PeerLiveness.Watch watch) {
    this.channel = channel;
    this.writer = new BatchingWriter(channel);
    this.timeoutMillis = requestTimeout.toMillis();
    this.watch = watch;
    this.silenceNanos = watch == null ? 0 : silence.toNanos();
    // One sweep per connection rather than a timer per request: scheduling and cancelling a timer
    // for each of hundreds of thousands of small requests a second costs more than the requests.
    long shortest =
        silenceNanos > 0
            ? Math.min(timeoutMillis, TimeUnit.NANOSECONDS.toMillis(silenceNanos))
            : timeoutMillis;
    long period = Math.max(MIN_SWEEP_MILLIS, Math.min(MAX_SWEEP_MILLIS, shortest / 8));
    ScheduledFuture<?> sweep =
        channel
            .eventLoop()
            .scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(f -> sweep.cancel(false));
  }

  /** A request id unique within this JVM, hence within every connection it opens. */
  public static long nextRequestId() {
    return REQUEST_IDS.incrementAndGet();
  }

  /**
   * Sends a request and returns its answer. The future fails with {@link RemoteException} when the
   * server answers with a non-OK status, {@link RequestTimeoutException} after {@code
   * transport.request.timeout}, and {@link ConnectionClosedException} when the connection breaks
   * first. Ownership of the request (and its body) passes to this call on every path. The caller
   * owns a successful response and must release it if it has a body.
   */
  public <R extends ResponseMessage> CompletableFuture<R> request(
      RequestMessage request, Class<R> responseType) {
    return request(request, responseType, false);
  }

  /**
   * {@link #request}, for a request that can go to another server (a push, a forward, a commit that
   * another copy also takes): it also fails, with {@link PeerUnresponsiveException}, as soon as the
   * peer is in doubt (it sent nothing with requests outstanding, and its liveness probe has gone
   * unanswered for a quarter of {@code transport.liveness.timeout}), rather than wait for the peer
   * to be given up. A connection on which the peer is still heard is not left: its doubt rests on
   * one unanswered probe, its bytes on the peer itself.
   */
  public <R extends ResponseMessage> CompletableFuture<R> requestOrLeave(
      RequestMessage request, Class<R> responseType) {
    return request(request, responseType, true);
  }

  private <R extends ResponseMessage> CompletableFuture<R> request(
      RequestMessage request, Class<R> responseType, boolean leaves) {
    long id = request.requestId();
    Pending<R> p =
        new Pending<>(
            responseType,
            new CompletableFuture<>(),
            request.type(),
            System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis),
            leaves);
    PeerUnresponsiveException doubt =
        leaves && watch != null && (silent || pending.isEmpty()) ? watch.doubt() : null;
    if (doubt != null) {
      ReferenceCountUtil.release(request);
      p.future.completeExceptionally(doubt);
      return p.future;
    }
    int limit = serverMaxFrameSize;
    long frame;
    try {
      frame = MessageEncoder.frameLength(request);
    } catch (RuntimeException e) {
      ReferenceCountUtil.release(request);
      p.future.completeExceptionally(e);
      return p.future;
    }
    if (limit > 0 && frame > limit) {
      // The server would answer FRAME_TOO_LARGE and close the connection, failing every other
      // request on it: refuse here, as the server would, and keep the connection.
      ReferenceCountUtil.release(request);
      p.future.completeExceptionally(
          new RemoteException(
              StatusCode.FRAME_TOO_LARGE,
              "a "
                  + request.type()
                  + " of "
                  + frame
                  + " bytes was not sent: server "
                  + serverId
                  + " at "
                  + channel.remoteAddress()
                  + " accepts frames of at most "
                  + limit
                  + " bytes ("
                  + TransportOptions.MAX_FRAME_SIZE.key()
                  + " on that server)"));
      return p.future;
    }
    if (pending.putIfAbsent(id, p) != null) {
      ReferenceCountUtil.release(request);
      p.future.completeExceptionally(
          new IllegalArgumentException("request id " + id + " is already outstanding"));
      return p.future;
    }
    writer
        .write(request)
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (!f.isSuccess() && pending.remove(id, p)) {
                    p.future.completeExceptionally(
                        new ConnectionClosedException(
                            "failed to send "
                                + request.type()
                                + " to "
                                + channel.remoteAddress()
                                + ": "
                                + NetworkErrors.describe(f.cause()),
                            f.cause()));
                  }
                });
    return p.future;
  }

  /** Called by the pipeline for every response; completes (or drops and releases) it. */
  void handleResponse(ResponseMessage response) {
    Pending<?> p = pending.remove(response.requestId());
    if (p == null) {
      // Answer to a request that timed out or was failed already: nobody will read it.
      ReferenceCountUtil.release(response);
      return;
    }
    p.complete(response, channel.remoteAddress());
  }

  /** Bytes arrived from the peer; event loop only. */
  void heard() {
    heard = true;
  }

  /** Runs on the event loop every sweep period. */
  private void sweep() {
    long now = System.nanoTime();
    failOverdue(now);
    if (silenceNanos > 0) {
      watchSilence(now);
      if (silent && !pending.isEmpty()) {
        leaveIfDoubted();
      }
    }
  }

  /** Fails the requests that can go elsewhere when the peer, silent here, is in doubt. */
  private void leaveIfDoubted() {
    PeerUnresponsiveException doubt = watch.doubt();
    if (doubt == null) {
      return;
    }
    for (Map.Entry<Long, Pending<?>> e : pending.entrySet()) {
      Pending<?> p = e.getValue();
      if (p.leaves && pending.remove(e.getKey(), p)) {
        p.future.completeExceptionally(doubt);
      }
    }
  }

  /**
   * Tells {@link #watch} when requests are outstanding and no byte moved either way for the silence
   * time: bytes, not answers, so that a large answer or a large request on a slow link counts as
   * progress. (Bytes the socket takes from us show only that the peer's kernel reads; a frozen
   * process stops them once its socket buffers are full.)
   */
  private void watchSilence(long now) {
    ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
    long unsent = out == null ? 0 : out.totalPendingWriteBytes();
    boolean sent = unsent < unsentBytes;
    unsentBytes = unsent;
    boolean idle = pending.isEmpty();
    if (heard || idle) {
      unheardSinceNanos = now;
      silent = false;
    } else if (now - unheardSinceNanos >= silenceNanos) {
      silent = true;
    }
    if (heard || sent || idle) {
      heard = false;
      quietSinceNanos = now;
    } else if (now - quietSinceNanos >= silenceNanos) {
      quietSinceNanos = now;
      watch.silent();
    }
  }

  /**
   * Whether the peer went silent on this connection: requests are outstanding and not a byte came
   * from the peer for the silence time (half of {@code transport.liveness.timeout}), as the last
   * sweep saw; false again once a byte comes or nothing is outstanding. Unlike the probe's trigger,
   * bytes we send do not count: a frozen process's kernel takes small requests for a long while,
   * and each new one would put the verdict off. Never true on a connection nobody watches.
   */
  public boolean isSilent() {
    return silent;
  }

  /** Fails the requests whose answer is overdue. */
  private void failOverdue(long now) {
    for (Map.Entry<Long, Pending<?>> e : pending.entrySet()) {
      Pending<?> p = e.getValue();
      if (now - p.deadlineNanos >= 0 && pending.remove(e.getKey(), p)) {
        p.future.completeExceptionally(
            new RequestTimeoutException(
                "no answer from "
                    + channel.remoteAddress()
                    + " to "
                    + p.requestType
                    + " "
                    + e.getKey()
                    + " within "
                    + timeoutMillis
                    + " ms ("
                    + TransportOptions.REQUEST_TIMEOUT.key()
                    + ")"));
      }
    }
  }

  /** Fails every outstanding request; called when the connection breaks. */
  void failAll(Throwable cause) {
    for (Map.Entry<Long, Pending<?>> e : pending.entrySet()) {
      if (pending.remove(e.getKey(), e.getValue())) {
        e.getValue()
            .future
            .completeExceptionally(
                cause instanceof IOException
                    ? cause
                    : new ConnectionClosedException(
                        "connection to " + channel.remoteAddress() + " failed", cause));
      }
    }
  }

  public int outstandingRequests() {
    return pending.size();
  }

  public boolean isActive() {
    return channel.isActive();
  }

  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  /** The id the server gave in its handshake. */
  public String serverId() {
    return serverId;
  }

  /** The protocol version agreed at the handshake; 0 before it. */
  public int protocolVersion() {
    return protocolVersion;
  }

  /** The largest frame the server accepts (protocol 5 on), or 0 when it did not say. */
  public int serverMaxFrameSize() {
    return serverMaxFrameSize;
  }

  /** Takes what the server's handshake answer says of the connection. */
  void handshaken(HandshakeResponse hello) {
    this.serverId = hello.serverId();
    this.protocolVersion = hello.protocolVersion();
    this.serverMaxFrameSize = hello.maxFrameSize();
  }

  Channel channel() {
    return channel;
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
  }

  @Override
  public String toString() {
    return "TransportClient["
        + channel.remoteAddress()
        + ", server="
        + serverId
        + ", active="
        + isActive()
        + "]";
  }

  private static final class Pending<R extends ResponseMessage> {
    final Class<R> type;
    final CompletableFuture<R> future;
    final MessageType requestType;
    final long deadlineNanos;

    /** Whether the request leaves a peer in doubt ({@link #requestOrLeave}). */
    final boolean leaves;

    Pending(
        Class<R> type,
        CompletableFuture<R> future,
        MessageType requestType,
        long deadlineNanos,
        boolean leaves) {
      this.type = type;
      this.future = future;
      this.requestType = requestType;
      this.deadlineNanos = deadlineNanos;
      this.leaves = leaves;
    }

    void complete(ResponseMessage response, SocketAddress from) {
      if (response.status() != StatusCode.OK) {
        ReferenceCountUtil.release(response);
        future.completeExceptionally(
            new RemoteException(
                response.status(), response.errorMessage() + " (from " + from + ")"));
      } else if (!type.isInstance(response)) {
        ReferenceCountUtil.release(response);
        future.completeExceptionally(
            new IOException(
                "expected "
                    + type.getSimpleName()
                    + " from "
                    + from
                    + " but got "
                    + response.type()));
      } else if (!future.complete(type.cast(response))) {
        ReferenceCountUtil.release(response);
      }
    }
  }
}
