package io.sluice.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.common.auth.AuthOptions;
import io.sluice.common.config.ConfigDocGenerator;
import io.sluice.common.config.ConfigLoader;
import io.sluice.common.config.SluiceConf;
import io.sluice.coordinator.CoordinatorOptions;
import io.sluice.server.ServerJvmOptions;
import io.sluice.server.ServerOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manifests under {@code deploy/kubernetes/} agree with the code and with each other: both
 * daemons' configurations load with the daemons' own configuration code (every key exists, every
 * value is valid), authentication is on with its secrets mounted from the Secret, the containers
 * expose the ports those configurations bind and are probed on {@code /ready}, the servers'
 * coordinators are the coordinators' Services, pods of a kind keep to different nodes, disruption
 * budgets, network policies and the ServiceMonitor name the ports and pods that exist, a server's
 * memory limit holds its heap and the direct memory {@code bin/start-server.sh} gives it, and its
 * grace period outlasts its drain.
 */
class KubernetesManifestsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String NAMESPACE = "sluice";
  private static final String SECRET = "sluice-secrets";
  private static final Pattern SCRIPT_KEY =
      Pattern.compile("'(?:\\\\n)?([a-z][a-z0-9.]*) %s\\\\n'");

  private static final List<Manifest> ALL = Manifest.readAll(Manifest.KUBERNETES_DIR);
  @TempDir static Path tmp;
  private static SluiceConf server;
  private static SluiceConf coordinator;

  @BeforeAll
  static void loadConfigurations() throws IOException {
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
    return Manifest.only(ALL, kind, name).document();
  }

  private static JsonNode podSpec(JsonNode workload) {
    return workload.path("spec").path("template").path("spec");
  }

  private static JsonNode container(JsonNode workload) {
    JsonNode containers = podSpec(workload).path("containers");
    assertEquals(1, containers.size(), workload.path("metadata").path("name").asText());
    return containers.get(0);
  }

  private static Map<String, Integer> containerPorts(JsonNode container) {
    Map<String, Integer> ports = new HashMap<>();
    container
        .path("ports")
        .forEach(p -> ports.put(p.path("name").asText(), p.path("containerPort").asInt()));
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

  private static Map<String, String> labels(JsonNode node) {
    Map<String, String> labels = new HashMap<>();
    node.fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
    return labels;
  }

  private static boolean selects(JsonNode selector, Map<String, String> podLabels) {
    Map<String, String> wanted = labels(selector.path("matchLabels"));
    return !wanted.isEmpty() && podLabels.entrySet().containsAll(wanted.entrySet());
  }

  private static Map<String, String> podLabels(JsonNode workload) {
    return labels(workload.path("spec").path("template").path("metadata").path("labels"));
  }

  /** The volume mounted at the directory holding {@code file}, as declared in the pod spec. */
  private static JsonNode volumeHolding(JsonNode workload, String file) {
    Path parent = Path.of(file).getParent();
    for (JsonNode mount : container(workload).path("volumeMounts")) {
      if (Path.of(mount.path("mountPath").asText()).equals(parent)) {
        for (JsonNode volume : podSpec(workload).path("volumes")) {
          if (volume.path("name").asText().equals(mount.path("name").asText())) {
            return volume;
          }
        }
      }
    }
    throw new AssertionError(
        file + " is on no volume of " + workload.path("metadata").path("name").asText());
  }

  /** The file lies in a volume of the Secret, not readable by every user, and that key exists. */
  private static void assertFromSecret(JsonNode workload, String file) {
    JsonNode secret = volumeHolding(workload, file).path("secret");
    assertEquals(SECRET, secret.path("secretName").asText(), file);
    int mode = secret.path("defaultMode").asInt(0644);
    assertEquals(
        0,
        mode & 0007,
        file
            + ": mode "
            + Integer.toOctalString(mode)
            + " lets every user read the secret, which the daemons refuse");
    String key = Path.of(file).getFileName().toString();
    if (secret.has("items")) {
      boolean listed = false;
      for (JsonNode item : secret.path("items")) {
        listed |= item.path("key").asText().equals(key) && item.path("path").asText().equals(key);
      }
      assertTrue(listed, file + " is one of the Secret's items");
    }
    String created =
        Files.exists(Manifest.KUBERNETES_DIR.resolve("config.yaml"))
            ? readQuietly(Manifest.KUBERNETES_DIR.resolve("config.yaml"))
            : "";
    assertTrue(
        created.contains("--from-literal=" + key + "="),
        "config.yaml's kubectl command creates the key " + key);
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static void assertOnePerNode(JsonNode workload) {
    JsonNode terms =
        podSpec(workload)
            .path("affinity")
            .path("podAntiAffinity")
            .path("requiredDuringSchedulingIgnoredDuringExecution");
    assertEquals(1, terms.size(), "one anti-affinity term");
    assertEquals("kubernetes.io/hostname", terms.get(0).path("topologyKey").asText());
    assertTrue(
        selects(terms.get(0).path("labelSelector"), podLabels(workload)),
        "the term keeps the workload's own pods apart");
  }

  private static void assertProbedOnReady(JsonNode container) {
    JsonNode ready = container.path("readinessProbe").path("httpGet");
    assertEquals("/ready", ready.path("path").asText());
    assertEquals("http", ready.path("port").asText());
    assertEquals("http", container.path("livenessProbe").path("httpGet").path("port").asText());
  }

  @Test
  void everyObjectIsNamedAndLivesInSluicesNamespace() {
    only("Namespace", NAMESPACE);
    for (Manifest m : ALL) {
      if (m.kind().equals("Namespace") || m.file().getParent().endsWith("spark")) {
        continue;
      }
      assertFalse(m.name().isEmpty(), m.toString());
      assertEquals(
          NAMESPACE, m.document().path("metadata").path("namespace").asText(), m.toString());
    }
  }

  @Test
  void serversExposeTheirConfiguredPortsAndReachTheCoordinatorServices() throws IOException {
    JsonNode set = only("StatefulSet", "sluice-server");
    JsonNode c = container(set);
    assertEquals(
        Map.of("rpc", server.get(ServerOptions.PORT), "http", server.get(ServerOptions.HTTP_PORT)),
        containerPorts(c));
    assertEquals("0.0.0.0", server.get(ServerOptions.BIND_HOST));
    assertProbedOnReady(c);
    JsonNode service = only("Service", set.path("spec").path("serviceName").asText());
    assertEquals("None", service.path("spec").path("clusterIP").asText(), "headless");

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
  void theEntryPointGivesEachServerPodItsNameAndTheKeysItWritesExist() throws IOException {
    JsonNode c = container(only("StatefulSet", "sluice-server"));
    assertEquals("server", c.path("args").get(0).asText());
    String conf = c.path("args").get(1).asText();
    assertEquals(
        "config", volumeHolding(only("StatefulSet", "sluice-server"), conf).path("name").asText());
    assertEquals(
        "$(POD_NAME).sluice-server.$(POD_NAMESPACE).svc", env(c, "SLUICE_ADVERTISED_HOST"));
    assertEquals("$(POD_NAME)", env(c, "SLUICE_SERVER_ID"));
    // The node, for the copies-on-different-machines rule, from the pod's own spec.
    boolean nodeFromSpec = false;
    for (JsonNode e : c.path("env")) {
      nodeFromSpec |=
          e.path("name").asText().equals("SLUICE_NODE")
              && e.path("valueFrom")
                  .path("fieldRef")
                  .path("fieldPath")
                  .asText()
                  .equals("spec.nodeName");
    }
    assertTrue(nodeFromSpec, "SLUICE_NODE comes from spec.nodeName");

    Path script = ROOT.resolve("bin/sluice-container.sh");
    assertTrue(Files.isExecutable(script), script.toString());
    Matcher m = SCRIPT_KEY.matcher(Files.readString(script));
    Set<String> written = new HashSet<>();
    while (m.find()) {
      written.add(m.group(1));
    }
    assertEquals(
        Set.of(
            ServerOptions.ADVERTISED_HOST.key(),
            ServerOptions.SERVER_ID.key(),
            ServerOptions.NODE.key()),
        written);
    String dockerfile = Files.readString(ROOT.resolve("deploy/docker/Dockerfile"));
    assertTrue(
        dockerfile.contains("ENTRYPOINT [\"/opt/sluice/bin/sluice-container.sh\"]"), dockerfile);
  }

  @Test
  void authenticationIsOnWithSecretsFromTheSecret() {
    assertTrue(server.get(AuthOptions.ENABLED));
    assertTrue(coordinator.get(AuthOptions.ENABLED));
    JsonNode set = only("StatefulSet", "sluice-server");
    assertFromSecret(set, server.get(AuthOptions.CLUSTER_SECRET_FILE));
    for (String name : List.of("sluice-coordinator-a", "sluice-coordinator-b")) {
      JsonNode deployment = only("Deployment", name);
      assertFromSecret(deployment, coordinator.get(AuthOptions.CLUSTER_SECRET_FILE));
      assertFromSecret(deployment, coordinator.get(CoordinatorOptions.ADMIN_TOKEN_FILE));
      // The daemons refuse secret files every user can read: the pods' group reads them.
      assertEquals(
          podSpec(deployment).path("securityContext").path("runAsGroup").asInt(),
          podSpec(deployment).path("securityContext").path("fsGroup").asInt(),
          name);
    }
  }

  @Test
  void coordinatorsExposeTheirConfiguredPortsOnDifferentNodes() {
    for (String name : List.of("sluice-coordinator-a", "sluice-coordinator-b")) {
      JsonNode deployment = only("Deployment", name);
      JsonNode c = container(deployment);
      assertEquals(
          Map.of(
              "rpc",
              coordinator.get(CoordinatorOptions.PORT),
              "http",
              coordinator.get(CoordinatorOptions.HTTP_PORT)),
          containerPorts(c),
          name);
      assertEquals("0.0.0.0", coordinator.get(CoordinatorOptions.BIND_HOST));
      assertEquals(
          List.of("coordinator", "/etc/sluice/conf/coordinator.conf"),
          List.of(c.path("args").get(0).asText(), c.path("args").get(1).asText()));
      assertProbedOnReady(c);
      assertOnePerNode(deployment);
      String heap = env(c, "SLUICE_COORDINATOR_HEAP");
      long limit =
          Sizes.kubernetesBytes(c.path("resources").path("limits").path("memory").asText());
      assertTrue(
          limit >= Sizes.jvmBytes(heap) + (256L << 20),
          name + ": memory limit " + limit + " below heap " + heap + " + 256 MiB");
    }
  }

  @Test
  void serversKeepToOneNodeEachAndDisruptionsTakeOneAtATime() {
    JsonNode set = only("StatefulSet", "sluice-server");
    assertOnePerNode(set);
    JsonNode serverBudget = only("PodDisruptionBudget", "sluice-server").path("spec");
    assertEquals(1, serverBudget.path("maxUnavailable").asInt());
    assertTrue(selects(serverBudget.path("selector"), podLabels(set)));
    JsonNode coordinatorBudget = only("PodDisruptionBudget", "sluice-coordinator").path("spec");
    assertEquals(1, coordinatorBudget.path("minAvailable").asInt());
    for (String name : List.of("sluice-coordinator-a", "sluice-coordinator-b")) {
      assertTrue(
          selects(coordinatorBudget.path("selector"), podLabels(only("Deployment", name))), name);
    }
  }

  @Test
  void networkPoliciesOpenTheConfiguredPortsToClientsPeersAndPrometheusOnly() {
    Map<String, Set<Integer>> serverPorts =
        openPorts(
            only("NetworkPolicy", "sluice-server"),
            podLabels(only("StatefulSet", "sluice-server")));
    assertEquals(
        Map.of(
            "sluice/client=true", Set.of(server.get(ServerOptions.PORT)),
            "app.kubernetes.io/component=server", Set.of(server.get(ServerOptions.PORT)),
            "app.kubernetes.io/name=prometheus", Set.of(server.get(ServerOptions.HTTP_PORT))),
        serverPorts);
    Map<String, Set<Integer>> coordinatorPorts =
        openPorts(
            only("NetworkPolicy", "sluice-coordinator"),
            podLabels(only("Deployment", "sluice-coordinator-a")));
    assertEquals(
        Map.of(
            "sluice/client=true",
            Set.of(coordinator.get(CoordinatorOptions.PORT)),
            "app.kubernetes.io/component=server",
            Set.of(coordinator.get(CoordinatorOptions.PORT)),
            "app.kubernetes.io/name=prometheus",
            Set.of(coordinator.get(CoordinatorOptions.HTTP_PORT)),
            "sluice/admin=true",
            Set.of(coordinator.get(CoordinatorOptions.HTTP_PORT))),
        coordinatorPorts);
    JsonNode template = Manifest.only(ALL, "Pod", "").document();
    assertEquals(
        "true",
        template.path("metadata").path("labels").path("sluice/client").asText(),
        "the driver pod template carries the client label");
  }

  /** Per peer (its most telling label), the ports a policy selecting {@code pod} opens to it. */
  private static Map<String, Set<Integer>> openPorts(JsonNode policy, Map<String, String> pod) {
    assertTrue(selects(policy.path("spec").path("podSelector"), pod));
    assertEquals(
        List.of("Ingress"), List.of(policy.path("spec").path("policyTypes").get(0).asText()));
    Map<String, Set<Integer>> open = new HashMap<>();
    for (JsonNode rule : policy.path("spec").path("ingress")) {
      Set<Integer> ports = new HashSet<>();
      rule.path("ports").forEach(p -> ports.add(p.path("port").asInt()));
      for (JsonNode peer : rule.path("from")) {
        Map<String, String> peerLabels = labels(peer.path("podSelector").path("matchLabels"));
        String telling =
            peerLabels.containsKey("app.kubernetes.io/component")
                ? "app.kubernetes.io/component=" + peerLabels.get("app.kubernetes.io/component")
                : peerLabels.entrySet().iterator().next().toString();
        open.computeIfAbsent(telling, k -> new HashSet<>()).addAll(ports);
      }
    }
    return open;
  }

  @Test
  void theServiceMonitorScrapesAPortEverySluiceServiceHas() {
    JsonNode monitor = only("ServiceMonitor", "sluice").path("spec");
    String port = monitor.path("endpoints").get(0).path("port").asText();
    assertEquals("/metrics", monitor.path("endpoints").get(0).path("path").asText());
    List<Manifest> services = Manifest.ofKind(ALL, "Service");
    assertEquals(3, services.size());
    for (Manifest service : services) {
      assertTrue(
          selects(
              monitor.path("selector"), labels(service.document().path("metadata").path("labels"))),
          service.toString());
      boolean named = false;
      for (JsonNode p : service.document().path("spec").path("ports")) {
        named |= p.path("name").asText().equals(port);
      }
      assertTrue(named, service + " has a port named " + port);
    }
  }

  @Test
  void aServersMemoryLimitHoldsItsHeapAndDirectMemoryAndItsGracePeriodItsDrain() {
    JsonNode set = only("StatefulSet", "sluice-server");
    JsonNode c = container(set);
    long heap = Sizes.jvmBytes(env(c, "SLUICE_SERVER_HEAP"));
    long direct = ServerJvmOptions.maxDirectMemory(server);
    long limit = Sizes.kubernetesBytes(c.path("resources").path("limits").path("memory").asText());
    assertTrue(
        limit >= heap + direct + (256L << 20),
        "memory limit "
            + limit
            + " below heap "
            + heap
            + " + direct memory "
            + direct
            + " + 256 MiB");
    long grace = podSpec(set).path("terminationGracePeriodSeconds").asLong();
    assertTrue(
        grace
            >= server.get(ServerOptions.DRAIN_TIMEOUT).toSeconds()
                + server.get(ServerOptions.STOP_FLUSH_TIMEOUT).toSeconds(),
        "grace period " + grace + " s: the drain plus the time a stop may take to flush");
    String dir = server.get(ServerOptions.LOCAL_DIRS).get(0);
    boolean mounted = false;
    for (JsonNode v : c.path("volumeMounts")) {
      mounted |= dir.startsWith(v.path("mountPath").asText() + "/");
    }
    assertTrue(mounted, "local.dirs " + dir + " is on a mounted volume");
    assertNotNull(set.path("spec").path("volumeClaimTemplates").get(0));
  }
}
