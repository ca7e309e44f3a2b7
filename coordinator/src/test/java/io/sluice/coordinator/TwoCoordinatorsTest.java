package io.sluice.coordinator;

import static io.sluice.coordinator.TestServers.GIB;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.protocol.message.AssignmentAnswer;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.transport.TransportClientFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TwoCoordinatorsTest {
  private CoordinatorServer first;
  private CoordinatorServer second;
  private TransportClientFactory factory;
  private final List<CoordinatorClient> clients = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    first = CoordinatorTestSupport.start(CoordinatorTestSupport.conf());
    second = CoordinatorTestSupport.start(CoordinatorTestSupport.conf());
    factory = CoordinatorTestSupport.clientFactory();
    CoordinatorClient servers = client(first, second);
    for (int i = 0; i < 8; i++) {
      ServerStatus status = TestServers.status("s" + i, "host-" + (i % 4), (1 + i % 3) * GIB);
      assertEquals(2, servers.sendHeartbeat(status).get(5, TimeUnit.SECONDS));
    }
  }

  @AfterEach
  void stop() {
    clients.forEach(CoordinatorClient::close);
    factory.close();
    first.close();
    second.close();
  }

  @Test
  void bothAnswerAlikeOnceTheyHeardTheSameHeartbeats() throws Exception {
    CoordinatorClient onlyFirst = client(first);
    CoordinatorClient onlySecond = client(second);
    onlyFirst.registerApplication("app-1", "alice");
    onlySecond.registerApplication("app-1", "alice");

    AssignmentAnswer a = onlyFirst.getAssignment("app-1", 0, 500, 2, List.of(), List.of());
    AssignmentAnswer b = onlySecond.getAssignment("app-1", 0, 500, 2, List.of(), List.of());

    assertEquals(a.servers(), b.servers());
    for (int p = 0; p < 500; p++) {
      assertArrayEquals(a.chains().chain(p), b.chains().chain(p), "partition " + p);
    }
  }

  @Test
  void aClientFailsOverWhenTheFirstCoordinatorStops() throws Exception {
    CoordinatorClient both = client(first, second);
    both.registerApplication("app-1", "alice");
    assertTrue(first.applications().isRegistered("app-1"));
    assertEquals(
        100, both.getAssignment("app-1", 0, 100, 1, List.of(), List.of()).partitionCount());

    first.close();

    // The second coordinator never heard of app-1: the client registers it there, then asks again.
    AssignmentAnswer answer = both.getAssignment("app-1", 1, 100, 2, List.of(), List.of());
    assertEquals(100, answer.partitionCount());
    assertTrue(second.applications().isRegistered("app-1"));
    both.appHeartbeat("app-1");
    both.unregisterApplication("app-1");
    assertEquals(0, second.applications().size());

    // Servers keep heart-beating; the dead coordinator costs them nothing but a debug line.
    assertEquals(
        1, both.sendHeartbeat(TestServers.status("s9", "host-9", GIB)).get(5, TimeUnit.SECONDS));
    assertTrue(second.servers().get("s9") != null);
  }

  private CoordinatorClient client(CoordinatorServer... coordinators) {
    CoordinatorClient client = CoordinatorTestSupport.client(factory, coordinators);
    clients.add(client);
    return client;
  }
}
