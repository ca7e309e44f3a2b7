package io.sluice.coordinator.metrics;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Histogram;
import io.prometheus.client.hotspot.DefaultExports;
import io.sluice.common.protocol.StatusCode;
import io.sluice.coordinator.app.ApplicationRegistry;
import io.sluice.coordinator.exclusion.ExclusionList;
import io.sluice.coordinator.registry.ServerCondition;
import io.sluice.coordinator.registry.ServerRegistry;
import java.util.List;
import java.util.Map;

/**
 * The coordinator's Prometheus metrics, in a registry of its own (so that several coordinators in
 * one JVM, as in tests, do not collide): requests by kind and outcome, assignment latency, servers
 * by condition and applications, read from the registries when scraped, and the JVM's own metrics.
 */
public final class CoordinatorMetrics {
  /** Request kinds, as the {@code request} label shows them. */
  public enum RequestKind {
    SERVER_HEARTBEAT,
    ASSIGNMENT,
    REGISTER_APP,
    APP_HEARTBEAT,
    UNREGISTER_APP,
    OTHER;

    String label() {
      return name().toLowerCase();
    }
  }

  private final CollectorRegistry registry = new CollectorRegistry(true);
  private final Counter requests =
      Counter.build()
          .name("sluice_coordinator_requests_total")
          .help("Requests answered, by kind and status code.")
          .labelNames("request", "status")
          .register(registry);
  private final Histogram assignmentLatency =
      Histogram.build()
          .name("sluice_coordinator_assignment_latency_seconds")
          .help("Time to compute an assignment, from request to answer, queueing included.")
          .buckets(0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1)
          .register(registry);
  private final Counter assignedPartitions =
      Counter.build()
          .name("sluice_coordinator_assigned_partitions_total")
          .help("Partitions assigned, replicas not counted.")
          .register(registry);
  private final Counter serversDropped =
      Counter.build()
          .name("sluice_coordinator_servers_dropped_total")
          .help("Servers dropped from the registry after missing heartbeats.")
          .register(registry);
  private final Counter appsExpired =
      Counter.build()
          .name("sluice_coordinator_apps_expired_total")
          .help("Applications forgotten after sending no heartbeat.")
          .register(registry);

  public CoordinatorMetrics(
      ServerRegistry servers, ApplicationRegistry apps, ExclusionList exclusions) {
    new StateCollector(servers, apps, exclusions).register(registry);
    DefaultExports.register(registry);
  }

  public CollectorRegistry registry() {
    return registry;
  }

  public void requestAnswered(RequestKind kind, StatusCode status) {
    requests.labels(kind.label(), status.name()).inc();
  }

  public void assignmentServed(long nanos, int partitions) {
    assignmentLatency.observe(nanos / 1e9);
    assignedPartitions.inc(partitions);
  }

  public void assignmentFailed(long nanos) {
    assignmentLatency.observe(nanos / 1e9);
  }

  public void serversDropped(int count) {
    serversDropped.inc(count);
  }

  public void appsExpired(int count) {
    appsExpired.inc(count);
  }

  /** Gauges computed from the registries at scrape time. */
  private static final class StateCollector extends Collector {
    private final ServerRegistry servers;
    private final ApplicationRegistry apps;
    private final ExclusionList exclusions;

    StateCollector(ServerRegistry servers, ApplicationRegistry apps, ExclusionList exclusions) {
      this.servers = servers;
      this.apps = apps;
      this.exclusions = exclusions;
    }

    @Override
    public List<MetricFamilySamples> collect() {
      GaugeMetricFamily byCondition =
          new GaugeMetricFamily(
              "sluice_coordinator_servers",
              "Registered servers by condition; only active ones get new work.",
              List.of("condition"));
      for (Map.Entry<ServerCondition, Integer> e : servers.countByCondition().entrySet()) {
        byCondition.addMetric(List.of(e.getKey().name().toLowerCase()), e.getValue());
      }
      GaugeMetricFamily excluded =
          new GaugeMetricFamily(
              "sluice_coordinator_excluded_servers",
              "Server ids excluded by the exclusion file or admin requests, registered or not.",
              exclusions.all().size());
      GaugeMetricFamily registered =
          new GaugeMetricFamily(
              "sluice_coordinator_apps",
              "Applications registered with this coordinator.",
              apps.size());
      return List.of(byCondition, excluded, registered);
    }
  }
}
