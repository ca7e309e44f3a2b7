package io.sluice.common.transport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a peer that stopped answering from one that is only busy, for the connections of one {@link
 * TransportClientFactory} ({@code transport.liveness.timeout}).
 *
 * <p>A connection with requests outstanding that heard nothing from its peer for half the timeout
 * reports the peer {@link #silent}. The peer is then probed: a new connection and handshake,
 * outside the pool, answered within the other half. Any answer shows a live process, even a refusal
 * or the peer closing the connection: a busy server answers handshakes on its event loops, and a
 * handshake, arriving whole, never waits for receive memory. No connection or no answer gives the
 * peer up: its connections' outstanding requests fail with {@link PeerUnresponsiveException} and
 * they close, and {@link #refusal} fails new connections to it at once. Requests that can go to
 * another server (pushes, forwards, commits: {@link TransportClient#requestOrLeave}) do not wait
 * for that verdict: once the probe has gone unanswered for {@link #doubtMillis} the peer is {@link
 * #doubted}, and they fail with the same exception, while reads and heartbeats, which have nowhere
 * else to go, wait for the verdict. A peer given up is probed again, one probe at a time and at
 * most one per half timeout, while callers still ask for it, and is taken back as soon as a probe
 * is answered: a process resumed from a pause answers the probe waiting in its socket. Nobody
 * asking for a peer for {@link #FORGET_NANOS} forgets it (a later connection is tried anew).
 */
final class PeerLiveness {
  private static final Logger LOG = LoggerFactory.getLogger(PeerLiveness.class);
  private static final long FORGET_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** Probes a peer: completes true when it answered anything within the time, false otherwise. */
  interface Prober {
    CompletableFuture<Boolean> probe(String host, int port, long timeoutMillis);
  }

  /** Fails the outstanding requests of every connection to a peer, and closes them. */
  interface Breaker {
    void giveUp(String host, int port, PeerUnresponsiveException cause);
  }

  /** What a connection to one peer tells of it, and asks. */
  interface Watch {
    /** Requests to the peer are outstanding and it sent nothing for half the timeout. */
    void silent();

    /** Why requests that can go elsewhere are to leave the peer now, or null when they are not. */
    PeerUnresponsiveException doubt();
  }

  private final long halfMillis;
  private final long doubtMillis;
  private final Prober prober;
  private final Breaker breaker;
  private final ScheduledExecutorService timer;
  private final ConcurrentHashMap<PeerKey, Peer> peers = new ConcurrentHashMap<>();

  /**
   * A peer's key: looked up on every request that may leave a peer in doubt and on every connection
   * taken from the pool, so no string is built for it.
   */
  private record PeerKey(String host, int port) {}

  /**
   * @param timeoutMillis {@code transport.liveness.timeout}, positive
   */
  PeerLiveness(long timeoutMillis, Prober prober, Breaker breaker, ScheduledExecutorService timer) {
    this.halfMillis = Math.max(1, timeoutMillis / 2);
    this.doubtMillis = Math.max(1, halfMillis / 2);
    this.prober = prober;
    this.breaker = breaker;
    this.timer = timer;
  }

  /** The watch of connections to {@code host:port}. */
  Watch watch(String host, int port) {
    return new Watch() {
      @Override
      public void silent() {
        PeerLiveness.this.silent(host, port);
      }

      @Override
      public PeerUnresponsiveException doubt() {
        return doubted(host, port);
      }
    };
  }

  /**
   * Why requests that can go elsewhere are to leave the peer: it was given up, or its probe has
   * gone unanswered for {@link #doubtMillis}, a quarter of the timeout (a live process answers a
   * handshake in milliseconds however busy it is; the margin is for a collector's pause on either
   * side); null otherwise.
   */
  PeerUnresponsiveException doubted(String host, int port) {
    Peer peer = peers.get(new PeerKey(host, port));
    if (peer == null) {
      return null;
    }
    long unanswered;
    synchronized (peer) {
      if (peer.givenUp) {
        return unresponsive(peer);
      }
      if (!peer.probing || peer.probeStartNanos == 0) {
        return null;
      }
      unanswered = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - peer.probeStartNanos);
    }
    if (unanswered < doubtMillis) {
      return null;
    }
    return new PeerUnresponsiveException(
        peer.host
            + ":"
            + peer.port
            + " sent nothing for "
            + halfMillis
            + " ms with requests outstanding and has not answered a probe for "
            + unanswered
            + " ms ("
            + TransportOptions.LIVENESS_TIMEOUT.key()
            + "): a push, forward or commit goes to another server rather than wait for the "
            + "verdict; its process is frozen or the link to it drops packets");
  }

  /** Whether the peer is being probed after a silence, or was given up. */
  boolean suspected(String host, int port) {
    Peer peer = peers.get(new PeerKey(host, port));
    if (peer == null) {
      return false;
    }
    synchronized (peer) {
      return peer.probing || peer.givenUp;
    }
  }

  /** A connection to the peer heard nothing for half the timeout with requests outstanding. */
  void silent(String host, int port) {
    PeerKey key = new PeerKey(host, port);
    while (true) {
      Peer peer = peers.computeIfAbsent(key, k -> new Peer(host, port));
      synchronized (peer) {
        if (peers.get(key) != peer) {
          continue; // an answered probe just forgot it: take the new one
        }
        if (peer.probing) {
          return;
        }
        peer.probing = true;
      }
      probe(peer);
      return;
    }
  }

  /** Why no connection to the peer is to be made now, or null when one may. */
  PeerUnresponsiveException refusal(String host, int port) {
    Peer peer = peers.get(new PeerKey(host, port));
    if (peer == null) {
      return null;
    }
    synchronized (peer) {
      if (!peer.givenUp) {
        return null;
      }
      peer.lastAskedNanos = System.nanoTime();
    }
    return unresponsive(peer);
  }

  private void probe(Peer peer) {
    long start = System.nanoTime();
    synchronized (peer) {
      peer.probeStartNanos = start;
    }
    CompletableFuture<Boolean> probed;
    try {
      probed = prober.probe(peer.host, peer.port, halfMillis);
    } catch (RuntimeException e) {
      probed = CompletableFuture.failedFuture(e);
    }
    probed.whenComplete((alive, error) -> probed(peer, start, error == null && alive));
  }

  private void probed(Peer peer, long start, boolean alive) {
    long now = System.nanoTime();
    boolean newlyGivenUp;
    synchronized (peer) {
      if (alive || (peer.givenUp && now - peer.lastAskedNanos > FORGET_NANOS)) {
        if (alive && peer.givenUp) {
          LOG.info("{}:{} answers again: connections to it are made again", peer.host, peer.port);
        }
        peer.probing = false;
        peer.givenUp = false;
        peers.remove(new PeerKey(peer.host, peer.port), peer);
        return;
      }
      newlyGivenUp = !peer.givenUp;
      if (newlyGivenUp) {
        peer.givenUp = true;
        peer.lastAskedNanos = now;
      }
    }
    try {
      if (newlyGivenUp) {
        PeerUnresponsiveException cause = unresponsive(peer);
        LOG.warn(
            "{}; failing the requests outstanding to it and probing it until it answers",
            cause.getMessage());
        breaker.giveUp(peer.host, peer.port, cause);
      }
    } finally {
      long next = Math.max(0, halfMillis - TimeUnit.NANOSECONDS.toMillis(now - start));
      try {
        timer.schedule(() -> probe(peer), next, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        synchronized (peer) {
          peer.probing = false;
        }
      }
    }
  }

  private PeerUnresponsiveException unresponsive(Peer peer) {
    return new PeerUnresponsiveException(
        peer.host
            + ":"
            + peer.port
            + " answered neither "
            + "requests nor a probe within "
            + 2 * halfMillis
            + " ms ("
            + TransportOptions.LIVENESS_TIMEOUT.key()
            + "): its process is frozen or the link to it "
            + "drops packets");
  }

  /** One peer's probing; guarded by the instance. */
  private static final class Peer {
    final String host;
    final int port;
    boolean probing;
    boolean givenUp;
    long lastAskedNanos;

    /** When the probe under way started; 0 before the first. */
    long probeStartNanos;

    Peer(String host, int port) {
      this.host = host;
      this.port = port;
    }
  }
}
