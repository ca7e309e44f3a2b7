package io.sluice.common.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.ReferenceCountUtil;
import io.sluice.common.auth.Credentials;
import io.sluice.common.auth.Identity;
import io.sluice.common.auth.Secret;
import io.sluice.common.auth.ServerAuth;
import io.sluice.common.protocol.AuthRole;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Authentication over real loopback connections: each role proves its secret and gets only what its
 * role and application allow; a wrong or missing proof ends the connection; a request for another
 * application is refused while the connection stays usable for its own.
 */
class AuthenticationTest {
  private static final Secret CLUSTER = Secret.random();
  private static final Secret APP_A = Secret.random();
  private static final Secret APP_B = Secret.random();

  /** The applications the server holds, and their secrets; registrars add theirs. */
  private final Map<String, Secret> apps =
      new ConcurrentHashMap<>(Map.of("app-a", APP_A, "app-b", APP_B));

  /** Who every request that reached the handler came from. */
  private final List<Identity> servedFor = new CopyOnWriteArrayList<>();

  private final List<AutoCloseable> open = new ArrayList<>();
  private TransportContext context;

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private TransportServer server(ServerAuth auth) {
    context = TransportTestSupport.context(TransportTestSupport.conf(Map.of()), "auth-server");
    TransportServer server = context.createServer("127.0.0.1", 0, this::serve, auth);
    open.add(server);
    return server;
  }

  private ServerAuth shuffleServerAuth() {
    return new ServerAuth(EnumSet.of(AuthRole.APPLICATION, AuthRole.REGISTRAR), CLUSTER, apps::get);
  }

  private void serve(TransportChannel channel, RequestMessage request) {
    ReferenceCountUtil.release(request);
    servedFor.add(channel.identity());
    channel.respond(StatusResponse.ok(request.requestId()));
  }

  private TransportClient connect(TransportServer server, Credentials credentials)
      throws IOException, InterruptedException {
    TransportClientFactory factory = context.createClientFactory(credentials);
    open.add(factory);
    return factory.getClient("127.0.0.1", server.port());
  }

  private static StatusCode heartbeat(TransportClient client, String app) throws Exception {
    try {
      client
          .request(
              new AppHeartbeatRequest(TransportClient.nextRequestId(), app), StatusResponse.class)
          .get(30, TimeUnit.SECONDS);
      return StatusCode.OK;
    } catch (ExecutionException e) {
      return assertInstanceOf(RemoteException.class, e.getCause()).status();
    }
  }

  private static RemoteException refusedAtConnect(Executable connect) {
    IOException e = assertThrows(IOException.class, connect::run);
    return assertInstanceOf(RemoteException.class, e, e.toString());
  }

  @FunctionalInterface
  private interface Executable {
    void run() throws Exception;
  }

  @Test
  void anExecutorServesItsOwnApplicationAndIsDeniedAnothersOnTheSameConnection() throws Exception {
    TransportServer server = server(shuffleServerAuth());
    TransportClient a = connect(server, Credentials.application("app-a", APP_A));

    assertEquals(StatusCode.OK, heartbeat(a, "app-a"));
    assertEquals(StatusCode.ACCESS_DENIED, heartbeat(a, "app-b"));
    assertEquals(StatusCode.OK, heartbeat(a, "app-a"), "the connection stays usable");
    assertTrue(a.isActive());
    assertEquals(
        List.of(
            new Identity(AuthRole.APPLICATION, "app-a", APP_A),
            new Identity(AuthRole.APPLICATION, "app-a", APP_A)),
        servedFor,
        "the denied request never reached the handler");
  }

  @Test
  void aWrongSecretOrAnUnknownApplicationIsRefusedAtConnect() {
    TransportServer server = server(shuffleServerAuth());

    RemoteException wrong =
        refusedAtConnect(() -> connect(server, Credentials.application("app-a", APP_B)));
    assertEquals(StatusCode.UNAUTHENTICATED, wrong.status());
    assertTrue(wrong.getMessage().contains("wrong secret"), wrong.getMessage());

    RemoteException unknown =
        refusedAtConnect(() -> connect(server, Credentials.application("app-z", APP_A)));
    assertEquals(StatusCode.UNKNOWN_APPLICATION, unknown.status());
    assertEquals(List.of(), servedFor);
  }

  @Test
  void aServerThatRequiresAuthenticationClosesAConnectionThatSkipsIt() throws Exception {
    TransportServer server = server(shuffleServerAuth());
    TransportClient anonymous = connect(server, Credentials.none());

    assertEquals(StatusCode.UNAUTHENTICATED, heartbeat(anonymous, "app-a"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (anonymous.isActive() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertFalse(anonymous.isActive(), "closed after the refusal");
    assertEquals(List.of(), servedFor);
  }

  /** The refusal closing the connection is sent as a peer of that version knows it. */
  @Test
  void aConnectionSpeakingAVersionBeforeAuthenticationIsRefusedWithAStatusItKnows()
      throws Exception {
    TransportServer server = server(shuffleServerAuth());
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.getOutputStream().write(RawFrames.encode(new HandshakeRequest(1, 3, 3, "old")));
      assertEquals(MessageType.HANDSHAKE_RESPONSE.id(), RawFrames.readAnswer(socket).type());
      socket.getOutputStream().write(RawFrames.encode(new AppHeartbeatRequest(2, "app-a")));
      RawFrames.Answer refused = RawFrames.readAnswer(socket);
      assertEquals(2, refused.requestId());
      assertEquals(
          StatusCode.REFUSED.code(),
          refused.status(),
          "version 3 knows no UNAUTHENTICATED: " + refused.message());
      assertTrue(RawFrames.closedByPeer(socket));
    }
    assertEquals(List.of(), servedFor);
  }

  @Test
  void aClientThatAuthenticatesRefusesAServerThatDoesNot() {
    TransportServer server = server(ServerAuth.disabled());

    RemoteException refused =
        refusedAtConnect(() -> connect(server, Credentials.application("app-a", APP_A)));
    assertEquals(StatusCode.UNAUTHENTICATED, refused.status());
    assertTrue(refused.getMessage().contains("auth.enabled"), refused.getMessage());
  }

  @Test
  void aRegistrarBringsTheApplicationsSecretAndIsConfinedToIt() throws Exception {
    TransportServer server = server(shuffleServerAuth());
    Secret fresh = Secret.random();
    TransportClient driver = connect(server, Credentials.registrar("app-new", fresh, CLUSTER));

    assertEquals(StatusCode.OK, heartbeat(driver, "app-new"));
    assertEquals(StatusCode.ACCESS_DENIED, heartbeat(driver, "app-a"));
    Identity who = servedFor.get(0);
    assertEquals(AuthRole.REGISTRAR, who.role());
    assertEquals(fresh, who.appSecret(), "the server unwrapped the secret the driver holds");
  }

  @Test
  void aRegistrarCannotReplaceTheSecretOfAnApplicationTheServerHolds() {
    TransportServer server = server(shuffleServerAuth());

    RemoteException taken =
        refusedAtConnect(
            () -> connect(server, Credentials.registrar("app-a", Secret.random(), CLUSTER)));
    assertEquals(StatusCode.UNAUTHENTICATED, taken.status());
    assertTrue(taken.getMessage().contains("another secret"), taken.getMessage());

    RemoteException notCluster =
        refusedAtConnect(
            () -> connect(server, Credentials.registrar("app-x", Secret.random(), APP_A)));
    assertEquals(
        StatusCode.UNAUTHENTICATED,
        notCluster.status(),
        "a registrar must hold the cluster secret");
  }

  @Test
  void aCoordinatorServesClusterMembersOnly() throws Exception {
    TransportServer coordinator =
        server(new ServerAuth(Set.of(AuthRole.CLUSTER), CLUSTER, app -> null));

    TransportClient member = connect(coordinator, Credentials.cluster(CLUSTER));
    assertEquals(StatusCode.OK, heartbeat(member, "app-a"));
    assertEquals(StatusCode.OK, heartbeat(member, "app-b"), "the cluster role is not confined");

    assertEquals(
        StatusCode.UNAUTHENTICATED,
        refusedAtConnect(() -> connect(coordinator, Credentials.cluster(Secret.random())))
            .status());
    RemoteException executor =
        refusedAtConnect(() -> connect(coordinator, Credentials.application("app-a", APP_A)));
    assertEquals(StatusCode.UNAUTHENTICATED, executor.status());
    assertTrue(
        executor.getMessage().contains("does not serve the APPLICATION role"),
        executor.getMessage());
  }
}
