package io.sluice.common.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay to a real server that can be frozen, as a process stopped with SIGSTOP is: its port
 * still takes connections (into the listen backlog) and its sockets stay open, but no byte goes
 * through in either direction until it is thawed. Bytes read while frozen are held and relayed on
 * thawing, as a resumed process reads what waited in its sockets.
 */
public final class FreezableRelay implements AutoCloseable {
  private final ServerSocket listener;
  private final String targetHost;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<Socket> clientSides = new CopyOnWriteArrayList<>();
  private final AtomicLong bytesFromClients = new AtomicLong();
  private final Object lock = new Object();
  private boolean frozen;
  private volatile boolean closed;

  public FreezableRelay(String targetHost, int targetPort) throws IOException {
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    start("relay-accept", this::acceptLoop);
  }

  public int port() {
    return listener.getLocalPort();
  }

  public void freeze() {
    synchronized (lock) {
      frozen = true;
    }
  }

  public void thaw() {
    synchronized (lock) {
      frozen = false;
      lock.notifyAll();
    }
  }

  /**
   * Resets every client's connection (a TCP RST, as from a host that lost the connection's state)
   * rather than closing it in order.
   */
  public void reset() throws IOException {
    for (Socket s : clientSides) {
      s.setSoLinger(true, 0);
      s.close();
    }
  }

  private void awaitThawed() throws InterruptedException {
    synchronized (lock) {
      while (frozen && !closed) {
        lock.wait();
      }
    }
  }

  private void acceptLoop() {
    try {
      while (!closed) {
        awaitThawed();
        Socket in = listener.accept();
        Socket out = new Socket(targetHost, targetPort);
        sockets.add(in);
        clientSides.add(in);
        sockets.add(out);
        start("relay-up", () -> pump(in, out, bytesFromClients));
        start("relay-down", () -> pump(out, in, new AtomicLong()));
      }
    } catch (IOException | InterruptedException e) {
      // closed
    }
  }

  /** Bytes the relay has read from its clients, relayed or held while frozen. */
  public long bytesFromClients() {
    return bytesFromClients.get();
  }

  private void pump(Socket from, Socket to, AtomicLong read) {
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        read.addAndGet(n);
        awaitThawed();
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // a side closed
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    thaw();
    listener.close();
    sockets.forEach(FreezableRelay::closeQuietly);
  }
}
