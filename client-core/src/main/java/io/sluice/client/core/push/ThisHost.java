package io.sluice.client.core.push;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which peers are reached at this JVM's own addresses, so that reaching them crosses no link: those
 * on this host, or in its network namespace where it has one of its own (a container, a pod).
 */
final class ThisHost {
  /** A JVM talks to a few servers; their addresses are looked up once. */
  private static final Map<InetAddress, Boolean> KNOWN = new ConcurrentHashMap<>();

  private ThisHost() {}

  /** Whether {@code address} (a connection's resolved peer) is one of this host's own. */
  static boolean has(SocketAddress address) {
    if (!(address instanceof InetSocketAddress inet) || inet.getAddress() == null) {
      return false;
    }
    return KNOWN.computeIfAbsent(inet.getAddress(), ThisHost::isOwn);
  }

  private static boolean isOwn(InetAddress address) {
    if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
      return true;
    }
    try {
      return NetworkInterface.getByInetAddress(address) != null;
    } catch (SocketException e) {
      return false;
    }
  }
}
