package io.sluice.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every document under {@code deploy/kubernetes/} is valid against the Kubernetes API schema
 * ({@link KubernetesSchema}): no field the schema does not define, every required field, every
 * value of its type. And the check itself is no formality: it refuses a misspelt field, a missing
 * required field and a value of the wrong type in the same manifests.
 */
class KubernetesSchemaTest {
  private static final List<Manifest> MANIFESTS = Manifest.readAll(Manifest.KUBERNETES_DIR);

  @Test
  void everyManifestIsValidAgainstTheKubernetesApiSchema() {
    Set<String> kinds = new TreeSet<>();
    for (Manifest m : MANIFESTS) {
      KubernetesSchema.validate(m.document(), m.toString());
      kinds.add(m.kind());
    }
    assertEquals(
        new TreeSet<>(
            Set.of(
                "ConfigMap",
                "Deployment",
                "Namespace",
                "NetworkPolicy",
                "Pod",
                "PodDisruptionBudget",
                "Service",
                "ServiceMonitor",
                "StatefulSet")),
        kinds);
  }

  @Test
  void aMisspeltFieldIsRefused() {
    ObjectNode set = copyOf("StatefulSet", "sluice-server");
    container(set).put("imagePullPolcy", "Always");
    String message = refusal(set);
    assertTrue(message.contains("imagePullPolcy"), message);
  }

  @Test
  void aMissingRequiredFieldIsRefused() {
    ObjectNode set = copyOf("StatefulSet", "sluice-server");
    container(set).remove("name");
    String message = refusal(set);
    assertTrue(message.contains("name"), message);
  }

  @Test
  void aValueOfTheWrongTypeIsRefused() {
    ObjectNode deployment = copyOf("Deployment", "sluice-coordinator-a");
    ((ObjectNode) deployment.path("spec")).put("replicas", "one");
    refusal(deployment);
    ObjectNode policy = copyOf("NetworkPolicy", "sluice-server");
    ((ObjectNode) policy.path("spec")).putArray("policyTypes").addObject().put("Ingress", true);
    refusal(policy);
  }

  @Test
  void aServiceMonitorWithAFieldItsKindDoesNotDefineIsRefused() {
    ObjectNode monitor = copyOf("ServiceMonitor", "sluice");
    ((ObjectNode) monitor.path("spec").path("endpoints").get(0)).put("scrapeEvery", "30s");
    String message = refusal(monitor);
    assertTrue(message.contains("scrapeEvery"), message);
  }

  @Test
  void aKindTheCheckDoesNotKnowIsRefusedRatherThanPassed() {
    ObjectNode unknown = copyOf("Service", "sluice-server");
    unknown.put("kind", "Servce");
    String message = refusal(unknown);
    assertTrue(message.contains("Servce"), message);
  }

  private static String refusal(JsonNode document) {
    return assertThrows(
            AssertionError.class, () -> KubernetesSchema.validate(document, "a changed copy"))
        .getMessage();
  }

  private static ObjectNode copyOf(String kind, String name) {
    return Manifest.only(MANIFESTS, kind, name).document().deepCopy();
  }

  private static ObjectNode container(ObjectNode workload) {
    ArrayNode containers =
        (ArrayNode) workload.path("spec").path("template").path("spec").path("containers");
    return (ObjectNode) containers.get(0);
  }
}
