package io.sluice.common.transport;

import static io.sluice.common.transport.RawFrames.descriptor;
import static io.sluice.common.transport.RawFrames.frame;
import static io.sluice.common.transport.RawFrames.pushHeader;
import static io.sluice.common.transport.RawFrames.raw;
import static io.sluice.common.transport.RawFrames.rawFrame;
import static io.sluice.common.transport.RawFrames.responseHeader;
import static io.sluice.common.transport.RawFrames.writeString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.sluice.common.protocol.Message;
import io.sluice.common.protocol.MessageType;
import io.sluice.common.protocol.ProtocolVersion;
import io.sluice.common.protocol.StatusCode;
import io.sluice.common.protocol.message.AppHeartbeatRequest;
import io.sluice.common.protocol.message.HandshakeRequest;
import io.sluice.common.protocol.message.HandshakeResponse;
import io.sluice.common.protocol.message.StatusResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sends malformed input to a live server on real sockets and checks that the sender gets an error
 * answer and a closed connection, while a well-behaved client on another connection is served
 * throughout.
 *
 * <p>The malformed inputs are the rules of docs/protocol.md's table "Protocol errors", read from
 * the document: each condition the table names (each item of a parenthesised list is a condition of
 * its own) has a probe here, and the server answers each with the status the table gives, the
 * request id the document says, and a closed connection. A row added to the table without a probe,
 * or a probe whose condition left the table, fails the test, so the document a second client is
 * written from and the server cannot drift apart.
 */
class BadInputTest {
  private static final int MAX_FRAME = 64 * 1024;
  private static final long ID = 0x0102_0304_0506_0708L;
  private static final long NO_ID = -1;
  private static final Path PROTOCOL_DOC = Path.of("..", "docs", "protocol.md");
  private static final Pattern ROW = Pattern.compile("^\\| (.+?) \\| `([A-Z_]+)`.*\\| (.+) \\|$");
  private static final Pattern LIST = Pattern.compile("^(.*?) \\((.+)\\)(?: or (.+))?$");

  /** One malformed input: the bytes, whether a handshake goes first, the request id answered. */
  private record Probe(byte[] bytes, boolean afterHandshake, long answeredId) {
    static Probe of(byte[] bytes, long answeredId) {
      return new Probe(bytes, true, answeredId);
    }
  }

  @TempDir static Path dir;
  private static TransportServer server;
  private static TransportClientFactory factory;

  @BeforeAll
  static void start() throws Exception {
    TransportConf conf =
        TransportTestSupport.conf(
            Map.of(TransportOptions.MAX_FRAME_SIZE.key(), String.valueOf(MAX_FRAME)));
    server =
        TransportTestSupport.context(conf, "server")
            .createServer(
                "127.0.0.1", 0, new TestHandler(Files.write(dir.resolve("d"), new byte[1])));
    factory = TransportTestSupport.context(conf, "good-client").createClientFactory();
  }

  @AfterAll
  static void stop() {
    factory.close();
    server.close();
  }

  @Test
  void requestBeforeHandshakeIsRejected() throws Exception {
    try (Socket socket = socket()) {
      socket.getOutputStream().write(RawFrames.encode(new AppHeartbeatRequest(47, "app")));
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      assertEquals(StatusCode.HANDSHAKE_REQUIRED.code(), answer.status());
      assertEquals(47, answer.requestId());
      assertTrue(RawFrames.closedByPeer(socket));
    }
  }

  @Test
  void aNewerClientGetsAClearErrorNamingBothRanges() throws Exception {
    int future = ProtocolVersion.CURRENT + 1;
    try (Socket socket = socket()) {
      socket
          .getOutputStream()
          .write(RawFrames.encode(new HandshakeRequest(48, future, future + 2, "future-client")));
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      assertEquals(MessageType.STATUS_RESPONSE.id(), answer.type());
      assertEquals(StatusCode.VERSION_MISMATCH.code(), answer.status());
      assertEquals(48, answer.requestId());
      assertTrue(
          answer
              .message()
              .contains(
                  "speaks protocol versions " + ProtocolVersion.describeRange(future, future + 2)),
          answer.message());
      assertTrue(
          answer.message().contains("this server speaks " + serverRange()), answer.message());
      assertTrue(RawFrames.closedByPeer(socket));
    }
  }

  @Test
  void aClientOfferingOnlyVersionOneIsAnsweredVersionMismatchAndClosed() throws Exception {
    try (Socket socket = socket()) {
      socket.getOutputStream().write(RawFrames.encode(new HandshakeRequest(49, 1, 1, "old")));
      // The answer is a StatusResponse (no HandshakeResponse) that a version-1 client can decode.
      Message answer = RawFrames.readMessage(socket);
      StatusResponse status = assertInstanceOf(StatusResponse.class, answer);
      assertEquals(StatusCode.VERSION_MISMATCH, status.status());
      assertEquals(49, status.requestId());
      assertTrue(
          status.errorMessage().contains("client old speaks protocol versions 1,"),
          status.errorMessage());
      assertTrue(
          status.errorMessage().contains("this server speaks " + serverRange()),
          status.errorMessage());
      assertTrue(RawFrames.closedByPeer(socket), "the connection is closed after the answer");
    }
  }

  @Test
  void anOverlappingRangeIsAnsweredWithTheHighestSharedVersion() throws Exception {
    try (Socket socket = socket()) {
      socket
          .getOutputStream()
          .write(
              RawFrames.encode(
                  new HandshakeRequest(50, 1, ProtocolVersion.CURRENT + 5, "wide-client")));
      HandshakeResponse hello =
          assertInstanceOf(HandshakeResponse.class, RawFrames.readMessage(socket));
      assertEquals(StatusCode.OK, hello.status());
      assertEquals(50, hello.requestId());
      assertEquals(ProtocolVersion.CURRENT, hello.protocolVersion());
      assertEquals("server", hello.serverId());
      // The connection stays usable.
      socket.getOutputStream().write(RawFrames.encode(new AppHeartbeatRequest(51, "app")));
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      assertEquals(StatusCode.OK.code(), answer.status());
      assertEquals(51, answer.requestId());
    }
  }

  private static String serverRange() {
    return ProtocolVersion.describeRange(ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT);
  }

  @Test
  void wellBehavedClientIsServedWhileOthersMisbehave() throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger served = new AtomicInteger();
    CompletableFuture<Void> good =
        CompletableFuture.runAsync(
            () -> {
              try {
                while (!stop.get()) {
                  StatusResponse r =
                      factory
                          .getClient("127.0.0.1", server.port())
                          .request(
                              new AppHeartbeatRequest(TransportClient.nextRequestId(), "good"),
                              StatusResponse.class)
                          .get(5, TimeUnit.SECONDS);
                  assertEquals(StatusCode.OK, r.status());
                  served.incrementAndGet();
                }
              } catch (Exception e) {
                throw new AssertionError(e);
              }
            });
    List<Rule> rules = documentedRules();
    Map<String, List<Probe>> probes = probes();
    for (int i = 0; i < 20; i++) {
      for (Rule rule : rules) {
        for (Probe probe : probes.get(rule.condition())) {
          assertAnswered(rule, probe);
        }
      }
    }
    stop.set(true);
    try {
      good.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("the well-behaved client failed", e.getCause());
    }
    assertTrue(served.get() > 0);
  }

  private static Socket socket() throws Exception {
    Socket s = new Socket("127.0.0.1", server.port());
    s.setSoTimeout(5000);
    return s;
  }

  /** The probes of each condition, by the condition's words in the table. */
  private static Map<String, List<Probe>> probes() {
    Map<String, List<Probe>> probes = new LinkedHashMap<>();
    probes.put(
        "frameLength > maxFrameSize",
        List.of(
            Probe.of(RawFrames.header(MAX_FRAME + 1, MessageType.PUSH_DATA_REQUEST.id(), ID), ID)));
    probes.put(
        "frameLength < 1",
        List.of(
            Probe.of(raw(out -> out.writeInt(0)), NO_ID),
            Probe.of(RawFrames.header(-5, MessageType.PUSH_DATA_REQUEST.id(), ID), NO_ID)));
    probes.put(
        "Type byte that names no message",
        List.of(Probe.of(rawFrame(123, out -> out.writeLong(ID).writeInt(7)), ID)));
    probes.put(
        "truncated",
        List.of(
            Probe.of(
                frame(
                    MessageType.APP_HEARTBEAT_REQUEST,
                    out -> out.writeLong(ID).writeShort(200).writeBytes(new byte[] {'a', 'b'})),
                ID)));
    probes.put(
        "invalid UTF-8",
        List.of(
            Probe.of(
                frame(
                    MessageType.APP_HEARTBEAT_REQUEST,
                    out -> out.writeLong(ID).writeShort(2).writeByte(0xC3).writeByte(0x28)),
                ID)));
    probes.put(
        "unknown enum code",
        List.of(
            Probe.of(
                frame(
                    MessageType.STATUS_RESPONSE,
                    out -> {
                      out.writeLong(ID).writeByte(99);
                      writeString(out, "");
                    }),
                ID)));
    probes.put(
        "bad bool",
        List.of(
            Probe.of(
                frame(
                    MessageType.FETCH_MEMORY_DATA_RESPONSE,
                    out -> {
                      responseHeader(out, ID);
                      out.writeByte(2).writeLong(0).writeInt(0);
                    }),
                ID)));
    probes.put(
        "count larger than the frame",
        List.of(
            Probe.of(
                frame(
                    MessageType.GET_SHUFFLE_RESULT_REQUEST,
                    out -> {
                      out.writeLong(ID);
                      writeString(out, "app");
                      out.writeInt(1).writeInt(7).writeInt(1_000_000).writeLong(1);
                    }),
                ID)));
    probes.put(
        "block lengths that do not add up to the body",
        List.of(
            Probe.of(
                frame(
                    MessageType.PUSH_DATA_REQUEST,
                    out -> {
                      pushHeader(out, ID, 0);
                      out.writeInt(1);
                      descriptor(out, 0, 100);
                      out.writeZero(99);
                    }),
                ID)));
    probes.put(
        "a negative block length or sequence",
        List.of(
            Probe.of(
                frame(
                    MessageType.PUSH_DATA_REQUEST,
                    out -> {
                      pushHeader(out, ID, 0);
                      out.writeInt(2);
                      descriptor(out, 0, -5);
                      descriptor(out, 1, 10);
                      out.writeZero(5);
                    }),
                ID),
            Probe.of(
                frame(
                    MessageType.PUSH_DATA_REQUEST,
                    out -> {
                      pushHeader(out, ID, 0);
                      out.writeInt(1);
                      descriptor(out, -1, 10);
                      out.writeZero(10);
                    }),
                ID)));
    probes.put("a commit's block count below 1", List.of(commit(0), commit(-1)));
    probes.put(
        "a relocation's negative partition or epoch",
        List.of(relocation(-1, 0), relocation(0, -1)));
    probes.put(
        "an index page that is not whole entries",
        List.of(
            Probe.of(
                frame(
                    MessageType.FETCH_INDEX_PAGE_RESPONSE,
                    out -> {
                      responseHeader(out, ID);
                      out.writeLong(0).writeInt(0).writeByte(0).writeZero(31);
                    }),
                ID)));
    probes.put(
        "port or server index out of range",
        List.of(
            Probe.of(
                frame(
                    MessageType.ASSIGNMENT_RESPONSE,
                    out -> {
                      responseHeader(out, ID);
                      out.writeInt(1);
                      serverAddress(out, 65_536);
                      out.writeInt(0);
                    }),
                ID),
            Probe.of(
                frame(
                    MessageType.ASSIGNMENT_RESPONSE,
                    out -> {
                      responseHeader(out, ID);
                      out.writeInt(1);
                      serverAddress(out, 7000);
                      out.writeInt(1).writeShort(2).writeInt(0).writeInt(1);
                    }),
                ID)));
    byte[] heartbeat = RawFrames.encode(new AppHeartbeatRequest(ID, "app"));
    byte[] trailing = Arrays.copyOf(heartbeat, heartbeat.length + 3);
    trailing[3] += 3;
    probes.put("trailing bytes after a message without body", List.of(Probe.of(trailing, ID)));
    probes.put(
        "A response type sent to a listener, even as the first message",
        List.of(
            Probe.of(RawFrames.encode(StatusResponse.ok(ID)), ID),
            new Probe(RawFrames.encode(StatusResponse.ok(ID)), false, ID)));
    return probes;
  }

  private static Probe commit(int blockCount) {
    return Probe.of(
        frame(
            MessageType.COMMIT_MAP_OUTPUT_REQUEST,
            out -> {
              out.writeLong(ID);
              writeString(out, "app");
              out.writeInt(1).writeInt(0).writeLong(5);
              out.writeInt(1).writeInt(3).writeInt(blockCount);
            }),
        ID);
  }

  private static Probe relocation(int partition, int epoch) {
    return Probe.of(
        frame(
            MessageType.RELOCATE_REQUEST,
            out -> {
              out.writeLong(ID);
              writeString(out, "app");
              out.writeInt(1).writeInt(1).writeInt(partition).writeInt(epoch);
              writeString(out, "server-1");
              writeString(out, "down");
            }),
        ID);
  }

  /** A server's id, host and port, as the protocol writes a server address. */
  private static void serverAddress(ByteBuf out, int port) {
    writeString(out, "s");
    writeString(out, "h");
    out.writeInt(port);
  }

  /** A row of the table: its condition, the status it names. */
  private record Rule(String condition, StatusCode status) {}

  @Test
  void everyDocumentedConditionIsAnsweredAsTheTableSays() throws Exception {
    List<Rule> rules = documentedRules();
    Map<String, List<Probe>> probes = probes();
    assertEquals(
        new TreeSet<>(probes.keySet()),
        rules.stream().map(Rule::condition).collect(Collectors.toCollection(TreeSet::new)),
        "the conditions of " + PROTOCOL_DOC + ", \"Protocol errors\", and this test's probes");
    for (Rule rule : rules) {
      for (Probe probe : probes.get(rule.condition())) {
        assertAnswered(rule, probe);
      }
    }
  }

  @Test
  void theTableListsExactlyTheResponseTypes() throws IOException {
    Matcher m = Pattern.compile("A response type \\(([0-9, ]+)\\)").matcher(tableText());
    assertTrue(m.find(), "the table has a row for response types");
    Set<Integer> documented =
        Arrays.stream(m.group(1).split(",\\s*"))
            .map(Integer::parseInt)
            .collect(Collectors.toCollection(TreeSet::new));
    Set<Integer> responses =
        Arrays.stream(MessageType.values())
            .filter(t -> !t.isRequest())
            .map(t -> t.id() & 0xFF)
            .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(responses, documented);
  }

  private static void assertAnswered(Rule rule, Probe probe) throws Exception {
    try (Socket socket = socket()) {
      OutputStream out = socket.getOutputStream();
      if (probe.afterHandshake()) {
        out.write(
            RawFrames.encode(
                new HandshakeRequest(
                    1, ProtocolVersion.MIN_SUPPORTED, ProtocolVersion.CURRENT, "probe")));
        assertEquals(StatusCode.OK.code(), RawFrames.readAnswer(socket).status());
      }
      out.write(probe.bytes());
      out.flush();
      RawFrames.Answer answer = RawFrames.readAnswer(socket);
      String what = rule.condition() + " (" + answer.message() + ")";
      assertEquals(MessageType.STATUS_RESPONSE.id(), answer.type(), what);
      assertEquals(rule.status().code(), answer.status(), what);
      assertEquals(probe.answeredId(), answer.requestId(), what);
      assertTrue(RawFrames.closedByPeer(socket), what + ": the connection is closed");
    }
  }

  /**
   * The table's conditions: a parenthesised list ("X (a, b) or c") stands for each of its items and
   * what follows "or"; a list of type ids ("A response type (2, 3) sent ...") for one.
   */
  private static List<Rule> documentedRules() throws IOException {
    List<Rule> rules = new ArrayList<>();
    for (String line : tableText().split("\n")) {
      Matcher row = ROW.matcher(line);
      if (!row.matches() || line.startsWith("| Condition") || line.startsWith("|---")) {
        continue;
      }
      StatusCode status = StatusCode.valueOf(row.group(2));
      String condition = row.group(1);
      Matcher list = LIST.matcher(condition);
      if (condition.startsWith("A response type (")) {
        rules.add(new Rule(condition.replaceFirst(" \\([0-9, ]+\\)", ""), status));
      } else if (list.matches()) {
        for (String item : list.group(2).split(", ")) {
          rules.add(new Rule(item, status));
        }
        if (list.group(3) != null) {
          rules.add(new Rule(list.group(3), status));
        }
      } else {
        rules.add(new Rule(condition, status));
      }
    }
    return rules;
  }

  /** The lines of the section "Protocol errors" up to the next heading. */
  private static String tableText() throws IOException {
    String doc = Files.readString(PROTOCOL_DOC);
    int start = doc.indexOf("\n## Protocol errors\n");
    assertTrue(start >= 0, PROTOCOL_DOC + " has a section \"Protocol errors\"");
    int end = doc.indexOf("\n## ", start + 1);
    return doc.substring(start, end < 0 ? doc.length() : end);
  }
}
