package io.sluice.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodDisruptionBudget;
import io.kubernetes.client.openapi.models.V1Secret;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Validates a manifest against the Kubernetes API schema. The kinds of the Kubernetes API are
 * checked by the official Kubernetes Java client's models (io.kubernetes:client-java-api), which
 * are generated from the OpenAPI schema of one Kubernetes release (1.35 for client-java 26): their
 * {@code validateJsonElement} refuses a field the schema does not define and a missing required
 * field, all the way down, and reading the document into the model refuses a value of the wrong
 * type. The ServiceMonitor kind belongs to prometheus-operator, not to Kubernetes: fabric8's model
 * of it reads the document, and any field that model does not define (which fabric8 keeps aside as
 * an "additional property") is refused.
 */
final class KubernetesSchema {
  private static final Map<String, Class<?>> KUBERNETES_KINDS =
      Map.of(
          "v1/Namespace", V1Namespace.class,
          "v1/ConfigMap", V1ConfigMap.class,
          "v1/Secret", V1Secret.class,
          "v1/Service", V1Service.class,
          "v1/Pod", V1Pod.class,
          "apps/v1/Deployment", V1Deployment.class,
          "apps/v1/StatefulSet", V1StatefulSet.class,
          "policy/v1/PodDisruptionBudget", V1PodDisruptionBudget.class,
          "networking.k8s.io/v1/NetworkPolicy", V1NetworkPolicy.class);
  private static final String SERVICE_MONITOR = "monitoring.coreos.com/v1/ServiceMonitor";

  private static final ObjectMapper JACKSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
  private static final JSON KUBERNETES_JSON = new JSON();

  private KubernetesSchema() {}

  /** Throws an AssertionError naming {@code where} and the violation. */
  static void validate(JsonNode document, String where) {
    String type = document.path("apiVersion").asText() + "/" + document.path("kind").asText();
    try {
      Class<?> model = KUBERNETES_KINDS.get(type);
      if (model != null) {
        validateKubernetes(document, model);
      } else if (type.equals(SERVICE_MONITOR)) {
        validateServiceMonitor(document);
      } else {
        throw new IllegalArgumentException(
            "no schema for "
                + type
                + " (known: "
                + KUBERNETES_KINDS.keySet()
                + ", "
                + SERVICE_MONITOR
                + ")");
      }
    } catch (Exception e) {
      throw new AssertionError(where + " is not valid: " + e.getMessage(), e);
    }
  }

  private static void validateKubernetes(JsonNode document, Class<?> model) throws Exception {
    JsonElement json = JsonParser.parseString(JACKSON.writeValueAsString(document));
    Method validate = model.getMethod("validateJsonElement", JsonElement.class);
    try {
      validate.invoke(null, json);
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
    // Types: an int where a string belongs, an object where a list does.
    KUBERNETES_JSON.getGson().fromJson(json, model);
  }

  private static void validateServiceMonitor(JsonNode document) throws Exception {
    ServiceMonitor monitor = JACKSON.treeToValue(document, ServiceMonitor.class);
    refuseAdditionalProperties(
        monitor, "ServiceMonitor", java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
  }

  /** Walks fabric8's model through its getters: any additional property is a field it lacks. */
  private static void refuseAdditionalProperties(Object node, String path, Set<Object> seen)
      throws ReflectiveOperationException {
    if (node == null || !seen.add(node)) {
      return;
    }
    if (node instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        refuseAdditionalProperties(item, path + "[" + i++ + "]", seen);
      }
      return;
    }
    if (!(node instanceof KubernetesResource)) {
      return;
    }
    for (Method getter : node.getClass().getMethods()) {
      if (getter.getParameterCount() != 0
          || Modifier.isStatic(getter.getModifiers())
          || !getter.getName().startsWith("get")
          || getter.getName().equals("getClass")) {
        continue;
      }
      Object value = getter.invoke(node);
      if (getter.getName().equals("getAdditionalProperties")) {
        Map<?, ?> extra = (Map<?, ?>) value;
        if (extra != null && !extra.isEmpty()) {
          throw new IllegalArgumentException(
              path + " has fields its kind does not define: " + extra.keySet());
        }
      } else {
        refuseAdditionalProperties(value, path + "." + getter.getName().substring(3), seen);
      }
    }
  }
}
