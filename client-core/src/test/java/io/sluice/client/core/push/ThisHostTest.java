package io.sluice.client.core.push;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import org.junit.jupiter.api.Test;

class ThisHostTest {
  @Test
  void loopbackIsThisHost() throws Exception {
    assertTrue(ThisHost.has(new InetSocketAddress(InetAddress.getLoopbackAddress(), 9099)));
  }

  @Test
  void everyAddressOfThisHostsInterfacesIsThisHost() throws Exception {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      for (InetAddress address : Collections.list(nic.getInetAddresses())) {
        assertTrue(ThisHost.has(new InetSocketAddress(address, 9099)), address.toString());
      }
    }
  }

  /** 192.0.2.0/24 is for documentation (RFC 5737): no host has it. */
  @Test
  void anotherHostsAddressAndAnUnresolvedNameAreNot() throws Exception {
    assertFalse(ThisHost.has(new InetSocketAddress(InetAddress.getByName("192.0.2.7"), 9099)));
    assertFalse(ThisHost.has(InetSocketAddress.createUnresolved("server-1.example", 9099)));
    assertFalse(ThisHost.has(null));
  }
}
