package io.sluice.coordinator;

import static io.sluice.coordinator.TestServers.GIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.sluice.common.config.ConfigException;
import io.sluice.common.coordinator.CoordinatorClient;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AssignmentAnswer;
import io.sluice.common.protocol.message.AssignmentResponse;
import io.sluice.common.protocol.message.AssignmentRunsResponse;
import io.sluice.common.protocol.message.RegisterShuffleRequest;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.protocol.message.StatusResponse;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.fixtures.Await;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CoordinatorServerTest {
  private CoordinatorServer coordinator;
  private TransportClientFactory factory;
  private CoordinatorClient client;

  @BeforeEach
  void start() {
    coordinator = CoordinatorTestSupport.start(CoordinatorTestSupport.conf());
    factory = CoordinatorTestSupport.clientFactory();
    client = CoordinatorTestSupport.client(factory, coordinator);
  }

  @AfterEach
  void stop() {
    client.close();
    factory.close();
    coordinator.close();
  }

  @Test
  void serversHeartBeatAndAnApplicationGetsAnAssignment() throws Exception {
    heartbeat(
        TestServers.status("s1", "host-1", GIB),
        TestServers.status("s2", "host-2", GIB),
        TestServers.status("s3", "host-3", 2 * GIB));
    client.registerApplication("app-1", "alice");

    AssignmentAnswer answer = client.getAssignment("app-1", 0, 100, 2, List.of(), List.of());

    assertEquals(StatusCode.OK, answer.status());
    assertEquals(100, answer.partitionCount());
    for (int p = 0; p < 100; p++) {
      List<ServerAddress> servers = answer.serversOf(p);
      assertEquals(2, servers.size());
      assertNotEquals(servers.get(0).host(), servers.get(1).host());
      assertEquals(19999, servers.get(0).port());
    }
  }

  @Test
  void offLoopbackWithoutAuthenticationTheCoordinatorRefusesToStart() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                CoordinatorServer.start(
                    CoordinatorTestSupport.conf().with(CoordinatorOptions.BIND_HOST, "0.0.0.0")));
    assertTrue(
        e.getMessage().startsWith("'coordinator.bind.host' is 0.0.0.0, not a loopback address"),
        e.getMessage());
  }

  @Test
  void anUnregisteredApplicationGetsUnknownApplication() throws Exception {
    heartbeat(TestServers.status("s1", "host-1", GIB));

    RemoteException e =
        assertThrows(
            RemoteException.class,
            () -> client.getAssignment("ghost", 0, 10, 1, List.of(), List.of()));

    assertEquals(StatusCode.UNKNOWN_APPLICATION, e.status());
    assertEquals(
        StatusCode.UNKNOWN_APPLICATION,
        assertThrows(RemoteException.class, () -> client.appHeartbeat("ghost")).status());
  }

  @Test
  void badAssignmentRequestsAreInvalidAndNoServersIsNotEnoughServers() throws Exception {
    client.registerApplication("app-1", "alice");
    assertEquals(
        StatusCode.NOT_ENOUGH_SERVERS,
        assertThrows(
                RemoteException.class,
                () -> client.getAssignment("app-1", 0, 10, 1, List.of(), List.of()))
            .status());

    heartbeat(TestServers.status("s1", "host-1", GIB));
    for (int partitions : new int[] {0, -7, Integer.MIN_VALUE}) {
      RemoteException e =
          assertThrows(
              RemoteException.class,
              () -> client.getAssignment("app-1", 0, partitions, 1, List.of(), List.of()));
      assertEquals(StatusCode.INVALID_REQUEST, e.status(), partitions + " partitions");
    }
    assertEquals(
        StatusCode.INVALID_REQUEST,
        assertThrows(
                RemoteException.class,
                () -> client.getAssignment("app-1", 0, 10, 0, List.of(), List.of()))
            .status());
    // The coordinator is still fine.
    assertEquals(
        10, client.getAssignment("app-1", 0, 10, 1, List.of(), List.of()).partitionCount());
  }

  @Test
  void aGarbageHeartbeatIsRefusedAndChangesNothing() throws Exception {
    heartbeat(TestServers.status("s1", "host-1", GIB));
    ServerStatus garbage = TestServers.builder("s2", "host-2").capacity(-GIB).used(0).build();
    ServerStatus badPort = TestServers.builder("s1", "host-1").port(0).build();

    assertEquals(0, client.sendHeartbeat(garbage).get(5, TimeUnit.SECONDS));
    assertEquals(0, client.sendHeartbeat(badPort).get(5, TimeUnit.SECONDS));

    assertEquals(1, coordinator.servers().size());
    assertEquals(19999, coordinator.servers().get("s1").status().dataPort());
  }

  @Test
  void aShuffleServerRequestIsRefusedWithoutHarm() throws Exception {
    TransportClient raw = factory.getClient("127.0.0.1", coordinator.port());

    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                raw.request(
                        new RegisterShuffleRequest(TransportClient.nextRequestId(), "app", 0, 4),
                        StatusResponse.class)
                    .get(5, TimeUnit.SECONDS));

    assertEquals(StatusCode.INVALID_REQUEST, ((RemoteException) e.getCause()).status());
    heartbeat(TestServers.status("s1", "host-1", GIB));
  }

  @Test
  void aSilentServerIsDroppedWithinTheTimeout() throws Exception {
    coordinator.close();
    coordinator =
        CoordinatorTestSupport.start(
            CoordinatorTestSupport.conf()
                .with(CoordinatorOptions.SERVER_HEARTBEAT_TIMEOUT, "300ms"));
    client.close();
    client = CoordinatorTestSupport.client(factory, coordinator);
    heartbeat(TestServers.status("s1", "host-1", GIB));

    Await.until(() -> coordinator.servers().size() == 0, "s1 to be dropped");
  }

  @Test
  void metricsAndStatusDescribeServersAndAssignments() throws Exception {
    heartbeat(TestServers.status("s1", "host-1", GIB), TestServers.status("s2", "host-2", GIB));
    client.registerApplication("app-1", "alice");
    client.getAssignment("app-1", 3, 50, 1, List.of(), List.of());

    HttpResponse<String> metrics = CoordinatorTestSupport.get(coordinator.httpPort(), "/metrics");
    assertEquals(200, metrics.statusCode());
    assertTrue(
        metrics.body().contains("sluice_coordinator_servers{condition=\"active\",} 2.0"),
        metrics.body());
    assertTrue(
        metrics
            .body()
            .contains(
                "sluice_coordinator_requests_total{request=\"assignment\",status=\"OK\",} 1.0"));
    assertTrue(metrics.body().contains("sluice_coordinator_assignment_latency_seconds_count 1.0"));
    assertTrue(metrics.body().contains("sluice_coordinator_assigned_partitions_total 50.0"));
    assertTrue(metrics.body().contains("sluice_coordinator_apps 1.0"));
    assertTrue(metrics.body().contains("jvm_memory_bytes_used"));

    HttpResponse<String> ready = CoordinatorTestSupport.get(coordinator.httpPort(), "/ready");
    assertEquals(200, ready.statusCode());
    assertEquals("ready\n", ready.body());
    HttpResponse<String> status = CoordinatorTestSupport.get(coordinator.httpPort(), "/status");
    assertEquals(200, status.statusCode());
    String body = status.body();
    assertTrue(body.contains("\"id\":\"s1\""), body);
    assertTrue(body.contains("\"condition\":\"active\""), body);
    assertTrue(body.contains("\"pushBufferCapacity\":" + 16 * GIB), body);
    assertTrue(body.contains("\"partitionsPending\":25"), body);
    assertTrue(body.contains("\"byUser\":{\"alice\":1}"), body);
  }

  @Test
  void anyPartitionCountSparkCanAskForIsAssignedInAnAnswerThatGrowsWithTheServersOnly()
      throws Exception {
    heartbeat(
        TestServers.status("s1", "host-1", GIB),
        TestServers.status("s2", "host-2", GIB),
        TestServers.status("s3", "host-3", GIB));
    client.registerApplication("app-1", "alice");

    AssignmentAnswer answer =
        client.getAssignment("app-1", 0, Integer.MAX_VALUE, 2, List.of(), List.of());

    assertTrue(answer instanceof AssignmentRunsResponse, answer.toString());
    assertEquals(Integer.MAX_VALUE, answer.partitionCount());
    assertTrue(answer.encodedLength() < 512, answer.encodedLength() + " bytes");
    for (int p : new int[] {0, 1, 1 << 24, (1 << 24) + 1, Integer.MAX_VALUE - 1}) {
      List<ServerAddress> servers = answer.serversOf(p);
      assertEquals(2, servers.size());
      assertNotEquals(servers.get(0).host(), servers.get(1).host(), "partition " + p);
    }
  }

  @Test
  void aClientOfAnEarlierReleaseGetsOneEntryPerPartitionWithTheSameChains() throws Exception {
    heartbeat(
        TestServers.status("s1", "host-1", GIB),
        TestServers.status("s2", "host-2", GIB),
        TestServers.status("s3", "host-3", GIB));
    client.registerApplication("app-1", "alice");
    TransportClientFactory oldFactory =
        new TransportContext(
                new TransportConf(CoordinatorTestSupport.conf()),
                "old-client",
                PooledByteBufAllocator.DEFAULT)
            .speakingUpTo(5)
            .createClientFactory();
    CoordinatorClient old = CoordinatorTestSupport.client(oldFactory, coordinator);
    try {
      AssignmentAnswer current = client.getAssignment("app-1", 0, 1000, 2, List.of(), List.of());
      AssignmentAnswer earlier = old.getAssignment("app-1", 1, 1000, 2, List.of(), List.of());

      assertTrue(current instanceof AssignmentRunsResponse, current.toString());
      assertTrue(earlier instanceof AssignmentResponse, earlier.toString());
      assertEquals(1000, earlier.partitionCount());
      assertEquals(3, earlier.servers().size());
      for (int p = 0; p < 1000; p++) {
        List<ServerAddress> chain = earlier.serversOf(p);
        assertEquals(2, chain.size());
        assertNotEquals(chain.get(0).host(), chain.get(1).host(), "partition " + p);
      }
      RemoteException tooMany =
          assertThrows(
              RemoteException.class,
              () -> old.getAssignment("app-1", 2, 1 << 24, 2, List.of(), List.of()));
      assertTrue(tooMany.getMessage().contains("transport.max.frame.size"), tooMany.getMessage());
    } finally {
      old.close();
      oldFactory.close();
    }
  }

  @Test
  void adminRequestsExcludeIncludeAndDecommission() throws Exception {
    heartbeat(TestServers.status("s1", "host-1", GIB), TestServers.status("s2", "host-2", GIB));
    client.registerApplication("app-1", "alice");
    int http = coordinator.httpPort();

    HttpResponse<String> excluded = CoordinatorTestSupport.post(http, "/admin/exclude?server=s1");
    assertEquals(200, excluded.statusCode(), excluded.body());
    assertTrue(excluded.body().contains("\"exclusion\":\"admin\""), excluded.body());
    assertEquals(Set.of("s2"), used(client.getAssignment("app-1", 0, 20, 1, List.of(), List.of())));

    assertEquals(200, CoordinatorTestSupport.post(http, "/admin/include?server=s1").statusCode());
    assertEquals(
        Set.of("s1", "s2"), used(client.getAssignment("app-1", 1, 20, 1, List.of(), List.of())));

    HttpResponse<String> drain = CoordinatorTestSupport.post(http, "/admin/decommission?server=s2");
    assertEquals(200, drain.statusCode(), drain.body());
    assertEquals(Set.of("s1"), used(client.getAssignment("app-1", 2, 20, 1, List.of(), List.of())));
    assertTrue(
        CoordinatorTestSupport.get(http, "/status")
            .body()
            .contains("\"condition\":\"decommissioning\""));

    assertEquals(405, CoordinatorTestSupport.get(http, "/admin/exclude?server=s1").statusCode());
    assertEquals(400, CoordinatorTestSupport.post(http, "/admin/exclude").statusCode());
    assertEquals(
        404, CoordinatorTestSupport.post(http, "/admin/decommission?server=nope").statusCode());
    assertEquals(404, CoordinatorTestSupport.post(http, "/admin/explode?server=s1").statusCode());
  }

  private void heartbeat(ServerStatus... statuses) throws Exception {
    for (ServerStatus status : statuses) {
      assertEquals(
          1,
          client.sendHeartbeat(status).get(5, TimeUnit.SECONDS),
          "heartbeat of " + status.serverId() + " accepted");
    }
  }

  private static Set<String> used(AssignmentAnswer answer) {
    Set<String> ids = new HashSet<>();
    answer.servers().forEach(s -> ids.add(s.serverId()));
    return ids;
  }
}
