package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.server.ServerJvmOptions;
import io.sluice.server.ServerOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manifests under {@code deploy/kubernetes/} parse, and agree with the code: both daemons'
 * configurations load with the daemons' own configuration code (every key exists, every value is
 * valid), the containers expose the ports those configurations bind, the servers' coordinators are
 * the coordinators' Services, a server's memory limit holds its heap and the direct memory
 * {@code bin/start-server.sh} gives it, and its grace period outlasts its drain.
 */
class KubernetesManifestsTest {
  private static final Path DIR = ProjectRoot.get().resolve("deploy/kubernetes");
  private static final Pattern APPENDED_KEY = Pattern.compile("echo \"([a-z][a-z0-9.]*) ");

  private static final List<JsonNode> DOCS = new ArrayList<>();
  @TempDir static Path tmp;
  private static SluiceConf server;
  private static SluiceConf coordinator;

  @BeforeAll
  static void parse() throws IOException {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    try (var files = Files.list(DIR)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        try (var docs = yaml.readerFor(JsonNode.class).<JsonNode>readValues(file.toFile())) {
          while (docs.hasNext()) {
            JsonNode doc = docs.next();
            if (doc != null && !doc.isNull() && !doc.isEmpty()) {
              DOCS.add(doc);
            }
          }
        }
      }
    }
    JsonNode config = only("ConfigMap", "sluice-config").path("data");
    server = load("server.conf", config.path("server.conf").asText());
    coordinator = load("coordinator.conf", config.path("coordinator.conf").asText());
  }

  private static SluiceConf load(String name, String text) throws IOException {
    assertFalse(text.isBlank(), name + " in the ConfigMap");
    Path file = Files.writeString(tmp.resolve(name), text);
    return ConfigLoader.load(file, Map.of(), ConfigDocGenerator.discover());
  }

  private static JsonNode only(String kind, String name) {
    List<JsonNode> found = DOCS.stream().filter(d -> kind.equals(d.path("kind").asText())
        && name.equals(d.path("metadata").path("name").asText())).toList();
    assertEquals(1, found.size(), kind + " " + name);
    return found.get(0);
  }

  private static JsonNode container(JsonNode workload) {
    JsonNode containers = workload.path("spec").path("template").path("spec").path("containers");
    assertEquals(1, containers.size(), workload.path("metadata").path("name").asText());
    return containers.get(0);
  }

  private static Map<String, Integer> containerPorts(JsonNode container) {
    Map<String, Integer> ports = new HashMap<>();
    container.path("ports").forEach(p -> ports.put(p.path("name").asText(),
        p.path("containerPort").asInt()));
    return ports;
  }

  private static String env(JsonNode container, String name) {
    for (JsonNode e : container.path("env")) {
      if (name.equals(e.path("name").asText())) {
        return e.path("value").asText();
      }
    }
    return null;
  }

  /** A JVM size as in {@code -Xmx}: 512m, 1g. */
  private static long jvmBytes(String size) {
    char unit = Character.toLowerCase(size.charAt(size.length() - 1));
    long n = Long.parseLong(size.substring(0, size.length() - 1));
    return switch (unit) {
      case 'k' -> n << 10;
      case 'm' -> n << 20;
      case 'g' -> n << 30;
      default -> Long.parseLong(size);
    };
  }

  /** A Kubernetes memory quantity in binary units: 1536Mi, 6Gi. */
  private static long kubernetesBytes(String quantity) {
    Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi)").matcher(quantity);
    assertTrue(m.matches(), "a memory quantity in Ki, Mi or Gi: " + quantity);
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "Ki" -> n << 10;
      case "Mi" -> n << 20;
      default -> n << 30;
    };
  }

  @Test
  void everyDocumentIsAKubernetesObject() {
    assertTrue(DOCS.size() >= 6, "documents: " + DOCS.size());
    for (JsonNode d : DOCS) {
      assertFalse(d.path("apiVersion").asText().isEmpty(), d.toString());
      assertFalse(d.path("kind").asText().isEmpty(), d.toString());
      assertFalse(d.path("metadata").path("name").asText().isEmpty(), d.toString());
    }
  }

  @Test
  void serversExposeTheirConfiguredPortsAndReachTheCoordinatorServices() throws IOException {
    JsonNode set = only("StatefulSet", "sluice-server");
    JsonNode c = container(set);
    assertEquals(Map.of("rpc", server.get(ServerOptions.PORT),
        "http", server.get(ServerOptions.HTTP_PORT)), containerPorts(c));
    assertEquals("0.0.0.0", server.get(ServerOptions.BIND_HOST));
    JsonNode service = only("Service", set.path("spec").path("serviceName").asText());
    assertEquals("None", service.path("spec").path("clusterIP").asText(), "headless");
    // The keys the container adds to the ConfigMap's file exist.
    String command = String.join(" ", new ObjectMapper().convertValue(c.path("command"),
        String[].class));
    Matcher m = APPENDED_KEY.matcher(command);
    Map<String, String> appended = new HashMap<>();
    while (m.find()) {
      appended.put(m.group(1), "value");
    }
    assertEquals(Map.of(ServerOptions.ADVERTISED_HOST.key(), "value",
        ServerOptions.SERVER_ID.key(), "value"), appended);
    ConfigLoader.load(Files.writeString(tmp.resolve("appended.conf"),
        "server.advertised.host shuffle-0.example\nserver.id shuffle-0\n"), Map.of(),
        ConfigDocGenerator.discover());
    assertTrue(command.contains("/opt/sluice/bin/start-server.sh"), command);
    assertTrue(Files.isExecutable(ProjectRoot.get().resolve("bin/start-server.sh")));

    for (String address : server.get(ServerOptions.COORDINATORS)) {
      String[] hostPort = address.split(":");
      JsonNode coordinatorService = only("Service", hostPort[0]);
      boolean served = false;
      for (JsonNode p : coordinatorService.path("spec").path("ports")) {
        served |= p.path("port").asInt() == Integer.parseInt(hostPort[1]);
      }
      assertTrue(served, address + " is a port of Service " + hostPort[0]);
      assertEquals(coordinator.get(CoordinatorOptions.PORT), Integer.parseInt(hostPort[1]));
    }
  }

  @Test
  void coordinatorsExposeTheirConfiguredPorts() {
    for (String name : List.of("sluice-coordinator-a", "sluice-coordinator-b")) {
      JsonNode c = container(only("Deployment", name));
      assertEquals(Map.of("rpc", coordinator.get(CoordinatorOptions.PORT),
          "http", coordinator.get(CoordinatorOptions.HTTP_PORT)), containerPorts(c), name);
      assertEquals("0.0.0.0", coordinator.get(CoordinatorOptions.BIND_HOST));
      String heap = env(c, "SLUICE_COORDINATOR_HEAP");
      long limit = kubernetesBytes(c.path("resources").path("limits").path("memory")
          .asText());
      assertTrue(limit >= jvmBytes(heap) + (256L << 20),
          name + ": memory limit " + limit + " below heap " + heap + " + 256 MiB");
    }
  }

  @Test
  void aServersMemoryLimitHoldsItsHeapAndDirectMemoryAndItsGracePeriodItsDrain() {
    JsonNode set = only("StatefulSet", "sluice-server");
    JsonNode c = container(set);
    long heap = jvmBytes(env(c, "SLUICE_SERVER_HEAP"));
    long direct = ServerJvmOptions.maxDirectMemory(server);
    long limit = kubernetesBytes(c.path("resources").path("limits").path("memory")
        .asText());
    assertTrue(limit >= heap + direct + (256L << 20), "memory limit " + limit
        + " below heap " + heap + " + direct memory " + direct + " + 256 MiB");
    long grace = set.path("spec").path("template").path("spec")
        .path("terminationGracePeriodSeconds").asLong();
    assertTrue(grace >= server.get(ServerOptions.DRAIN_TIMEOUT).toSeconds()
            + server.get(ServerOptions.STOP_FLUSH_TIMEOUT).toSeconds(),
        "grace period " + grace + " s: the drain plus the time a stop may take to flush");
    String dir = server.get(ServerOptions.LOCAL_DIRS).get(0);
    boolean mounted = false;
    for (JsonNode v : c.path("volumeMounts")) {
      mounted |= dir.startsWith(v.path("mountPath").asText() + "/");
    }
    assertTrue(mounted, "local.dirs " + dir + " is on a mounted volume");
  }
}
