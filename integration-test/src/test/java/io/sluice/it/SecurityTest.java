package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import io.sluice.common.auth.Credentials;
import io.sluice.common.auth.Secret;
import io.sluice.common.auth.SecretFile;
import io.sluice.common.buffer.NettyManagedBuffer;
import io.sluice.common.checksum.Crc32c;
import io.sluice.common.config.SluiceConf;
import io.sluice.common.protocol.RequestMessage;
import io.sluice.common.protocol.ResponseMessage;
import io.sluice.common.protocol.ServerAddress;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.BlockDescriptor;
import io.sluice.common.protocol.message.CommitMapOutputRequest;
import io.sluice.common.protocol.message.FetchIndexRequest;
import io.sluice.common.protocol.message.FetchMemoryDataRequest;
import io.sluice.common.protocol.message.GetShuffleResultRequest;
import io.sluice.common.protocol.message.PushDataRequest;
import io.sluice.common.protocol.message.RegisterApplicationRequest;
import io.sluice.common.protocol.message.ServerHeartbeatRequest;
import io.sluice.common.protocol.message.ServerState;
import io.sluice.common.protocol.message.ServerStatus;
import io.sluice.common.protocol.message.UnregisterApplicationRequest;
import io.sluice.common.protocol.message.UnregisterShuffleRequest;
import io.sluice.common.transport.RemoteException;
import io.sluice.common.transport.TransportClient;
import io.sluice.common.transport.TransportClientFactory;
import io.sluice.common.transport.TransportConf;
import io.sluice.common.transport.TransportContext;
import io.sluice.server.ShuffleServer;
import io.sluice.testcluster.MiniCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.HashPartitioner;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * A cluster with authentication on, and a second application that holds a valid secret of its own
 * and the cluster secret (as every driver does) trying everything against the first one's shuffle
 * while that application's jobs run: every attempt is refused, the first application's answers stay
 * right and Spark sees no failed task. Servers that cannot prove the cluster secret do not join;
 * admin calls need the token.
 */
class SecurityTest {
  private static final String ADMIN_TOKEN = "admin-token-0123456789abcdef0123456789";
  private static final int RECORDS = 200_000;
  private static final int KEYS = 500;

  private static Path dir;
  private static Path clusterSecretFile;
  private static Secret clusterSecret;
  private static MiniCluster cluster;

  @BeforeAll
  static void startCluster() throws Exception {
    dir = Files.createTempDirectory("sluice-security");
    clusterSecretFile = secretFile("cluster.secret", "cluster-secret-0123456789abcdef0123456789");
    Path adminTokenFile = secretFile("admin.token", ADMIN_TOKEN);
    clusterSecret = SecretFile.read(clusterSecretFile.toString(), "auth.cluster.secret.file");
    cluster =
        new MiniCluster(
            2,
            Map.of(),
            Map.of(
                "auth.enabled", "true",
                "auth.cluster.secret.file", clusterSecretFile.toString(),
                "coordinator.admin.token.file", adminTokenFile.toString()));
  }

  @AfterAll
  static void stopCluster() throws Exception {
    cluster.close();
  }

  private static Path secretFile(String name, String content) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, content + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  private static SparkSession authenticatedSession(String name, Map<String, String> extra) {
    SparkConf conf =
        SparkSessions.withSluice(SparkSessions.base("local[2]", name), cluster)
            .set("spark.sluice.auth.enabled", "true")
            .set("spark.sluice.auth.cluster.secret.file", clusterSecretFile.toString());
    return SparkSessions.start(conf, extra);
  }

  /** Keys 0..KEYS-1, each with the count of records that have it. */
  private static JavaPairRDD<Integer, Long> counted(JavaSparkContext sc) {
    List<Integer> seeds = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      seeds.add(i);
    }
    return sc.parallelize(seeds, 8)
        .flatMapToPair(
            seed -> {
              List<Tuple2<Integer, Long>> out = new ArrayList<>();
              for (int i = 0; i < RECORDS / 8; i++) {
                out.add(new Tuple2<>((seed * 7919 + i) % KEYS, 1L));
              }
              return out.iterator();
            })
        .partitionBy(new HashPartitioner(8));
  }

  private static long sumOfCounts(JavaPairRDD<Integer, Long> shuffled) {
    return shuffled.values().reduce(Long::sum);
  }

  @Test
  void anotherApplicationCannotReadExtendOrDeleteAShuffleWhileItsJobsRun() throws Exception {
    SparkSession spark = authenticatedSession("security-a", Map.of());
    JobObserver observer = new JobObserver();
    spark.sparkContext().addSparkListener(observer);
    TransportContext context =
        new TransportContext(
            new TransportConf(SluiceConf.empty()), "intruder", PooledByteBufAllocator.DEFAULT);
    Secret intruderSecret = Secret.random();
    try (TransportClientFactory intruder =
        context.createClientFactory(
            Credentials.registrar("app-intruder", intruderSecret, clusterSecret))) {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      String victim = sc.sc().applicationId();
      JavaPairRDD<Integer, Long> shuffled = counted(sc);
      assertEquals(RECORDS, sumOfCounts(shuffled), "first job");

      // The intruder registers its own application properly, then goes after the victim's
      // shuffle 0 on every server, over and over, while the victim reads it again.
      List<ServerAddress> servers =
          cluster.servers().stream()
              .map(s -> new ServerAddress(s.serverId(), "127.0.0.1", s.port()))
              .toList();
      for (ServerAddress s : servers) {
        assertEquals(
            StatusCode.OK,
            status(
                intruder,
                s,
                new RegisterApplicationRequest(
                    TransportClient.nextRequestId(), "app-intruder", "mallory")));
      }
      AtomicBoolean running = new AtomicBoolean(true);
      AtomicInteger attempts = new AtomicInteger();
      List<String> served = new ArrayList<>();
      Thread attack =
          new Thread(
              () -> {
                while (running.get()) {
                  for (ServerAddress s : servers) {
                    for (RequestMessage r : attacks(victim)) {
                      try {
                        StatusCode answer = status(intruder, s, r);
                        attempts.incrementAndGet();
                        if (answer != StatusCode.ACCESS_DENIED) {
                          synchronized (served) {
                            served.add(r.type() + " -> " + answer);
                          }
                        }
                      } catch (Exception e) {
                        synchronized (served) {
                          served.add(r.type() + " -> " + e);
                        }
                      }
                    }
                  }
                }
              },
              "intruder");
      attack.start();
      long[] sums = new long[3];
      try {
        for (int i = 0; i < sums.length; i++) {
          sums[i] = sumOfCounts(shuffled);
        }
      } finally {
        running.set(false);
        attack.join(TimeUnit.SECONDS.toMillis(60));
      }

      assertEquals(List.of(), served, "every request for the victim's data was refused");
      assertTrue(
          attempts.get() >= attacks(victim).size() * servers.size(), "attempts: " + attempts.get());
      for (long sum : sums) {
        assertEquals(RECORDS, sum, "the victim's answers while the intruder tried");
      }
      assertEquals(List.of(), observer.failures(), "Spark saw no failed task");

      // Claiming the victim's identity fails at the handshake, whatever the intruder holds.
      ServerAddress first = servers.get(0);
      for (Credentials forged :
          List.of(
              Credentials.application(victim, intruderSecret),
              Credentials.registrar(victim, intruderSecret, clusterSecret))) {
        try (TransportClientFactory impostor = context.createClientFactory(forged)) {
          IOException e =
              assertThrows(
                  IOException.class,
                  () -> impostor.getClient(first.host(), first.port()),
                  forged.toString());
          assertEquals(
              StatusCode.UNAUTHENTICATED,
              assertInstanceOf(RemoteException.class, e).status(),
              e.getMessage());
        }
      }
      try (TransportClientFactory anonymous = context.createClientFactory()) {
        TransportClient c = anonymous.getClient(first.host(), first.port());
        assertEquals(
            StatusCode.UNAUTHENTICATED,
            status(c, new FetchIndexRequest(TransportClient.nextRequestId(), victim, 0, 0)));
      }

      assertEquals(RECORDS, sumOfCounts(shuffled), "the shuffle is intact afterwards");
      double denied = 0;
      for (ShuffleServer s : cluster.servers()) {
        Double v =
            s.metrics()
                .registry()
                .getSampleValue(
                    "sluice_server_protocol_errors_total",
                    new String[] {"status"},
                    new String[] {StatusCode.ACCESS_DENIED.name()});
        denied += v == null ? 0 : v;
      }
      assertTrue(denied >= attempts.get(), "counted in the metrics: " + denied);
    } finally {
      spark.stop();
    }
  }

  /** Everything an intruder might send about the victim's shuffle 0. */
  private static List<RequestMessage> attacks(String victim) {
    byte[] forged = "forged rows".getBytes(StandardCharsets.UTF_8);
    return List.of(
        new FetchIndexRequest(TransportClient.nextRequestId(), victim, 0, 0),
        new FetchMemoryDataRequest(
            TransportClient.nextRequestId(),
            victim,
            0,
            0,
            FetchMemoryDataRequest.FROM_START,
            1 << 20,
            new long[0]),
        new GetShuffleResultRequest(
            TransportClient.nextRequestId(), victim, 0, 0, new long[] {0, 1, 2}),
        new PushDataRequest(
            TransportClient.nextRequestId(),
            victim,
            0,
            List.of(),
            List.of(
                new BlockDescriptor(
                    0,
                    0L,
                    999,
                    forged.length,
                    forged.length,
                    Crc32c.of(Unpooled.wrappedBuffer(forged)))),
            new NettyManagedBuffer(Unpooled.wrappedBuffer(forged))),
        new CommitMapOutputRequest(
            TransportClient.nextRequestId(), victim, 0, 0, 0L, new int[] {0}, new int[] {1000}),
        new UnregisterShuffleRequest(TransportClient.nextRequestId(), victim, 0),
        new UnregisterApplicationRequest(TransportClient.nextRequestId(), victim));
  }

  @Test
  void applicationsThatUseSparksOwnSecretAuthenticateToo() {
    SparkSession spark =
        authenticatedSession(
            "security-spark-auth",
            Map.of(
                "spark.authenticate", "true",
                "spark.authenticate.secret", "spark-secret-0123456789abcdef"));
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      assertEquals(RECORDS, sumOfCounts(counted(sc)));
    } finally {
      spark.stop();
    }
  }

  @Test
  void aServerThatCannotProveTheClusterSecretDoesNotJoin() throws Exception {
    int before = cluster.coordinator().servers().size();
    TransportContext context =
        new TransportContext(
            new TransportConf(SluiceConf.empty()), "fake-server", PooledByteBufAllocator.DEFAULT);
    ServerHeartbeatRequest claim =
        new ServerHeartbeatRequest(
            TransportClient.nextRequestId(),
            new ServerStatus(
                "fake-server",
                "127.0.0.1",
                1,
                2,
                ServerState.ACTIVE,
                "0.1.0",
                0,
                1L << 40,
                0,
                1L << 40,
                0,
                List.of(),
                List.of(),
                System.currentTimeMillis()));
    try (TransportClientFactory anonymous = context.createClientFactory();
        TransportClientFactory wrong =
            context.createClientFactory(Credentials.cluster(Secret.random()))) {
      TransportClient c = anonymous.getClient("127.0.0.1", cluster.coordinator().port());
      assertEquals(StatusCode.UNAUTHENTICATED, status(c, claim));
      IOException e =
          assertThrows(
              IOException.class, () -> wrong.getClient("127.0.0.1", cluster.coordinator().port()));
      assertEquals(StatusCode.UNAUTHENTICATED, assertInstanceOf(RemoteException.class, e).status());
    }
    assertEquals(before, cluster.coordinator().servers().size());
    assertEquals(null, cluster.coordinator().servers().get("fake-server"));
  }

  @Test
  void adminCallsNeedTheToken() throws Exception {
    String url =
        "http://127.0.0.1:" + cluster.coordinator().httpPort() + "/admin/exclude?server=nobody";
    HttpClient http = HttpClient.newHttpClient();
    for (String header : new String[] {null, "Bearer wrong-token", "Basic " + ADMIN_TOKEN}) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody());
      if (header != null) {
        request.header("Authorization", header);
      }
      HttpResponse<String> refused =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, refused.statusCode(), header + ": " + refused.body());
      assertTrue(refused.body().contains("coordinator.admin.token.file"), refused.body());
    }
    HttpResponse<String> ok =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, ok.statusCode(), ok.body());
    HttpResponse<String> included =
        http.send(
            HttpRequest.newBuilder(URI.create(url.replace("exclude", "include")))
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, included.statusCode(), included.body());
  }

  private static StatusCode status(
      TransportClientFactory clients, ServerAddress server, RequestMessage request)
      throws Exception {
    return status(clients.getClient(server.host(), server.port()), request);
  }

  /** The status the server answered with; a successful answer of another type is OK. */
  private static StatusCode status(TransportClient client, RequestMessage request)
      throws Exception {
    try {
      ResponseMessage answer =
          client.request(request, ResponseMessage.class).get(30, TimeUnit.SECONDS);
      ReferenceCountUtil.release(answer);
      return answer.status();
    } catch (ExecutionException e) {
      return assertInstanceOf(RemoteException.class, e.getCause()).status();
    }
  }
}
