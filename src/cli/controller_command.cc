// `attune controller`: the operator. Runs the controller core against a cluster (kubeconfig or
// in-cluster), with leader election on a Lease, /metrics /healthz /readyz, graceful shutdown on
// SIGTERM/SIGINT, and redacted text or JSON logs (docs/operator.md); with --hpa-guard, the HPA
// guard too (docs/hpa.md).
#include <fmt/format.h>

#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/hpa_guard_process.h"
#include "cli/malloc_arenas.h"
#include "cli/operator_process.h"
#include "cli/webhook_certificates.h"
#include "cli/webhook_endpoints.h"
#include "controller/admission_sizing.h"
#include "controller/controller.h"
#include "controller/node_load_monitor.h"
#include "controller/policy_metrics_sources.h"
#include "controller/slo_queries.h"
#include "kube/cached_cluster_api.h"
#include "kube/http_cluster_api.h"
#include "kube/rate_limiter.h"
#include "metrics/exposition/registry.h"
#include "metrics/gated_source.h"
#include "metrics/prometheus/prometheus_pool.h"
#include "metrics/prometheus/prometheus_scalar_query.h"
#include "metrics/prometheus/prometheus_source.h"
#include "metrics/prometheus/query_metrics.h"
#include "safety/observation.h"

namespace attune::cli {
namespace {

// --webhook-*: the admission webhooks (docs/webhooks.md); off while --webhook-address is empty.
struct WebhookFlags {
  std::string address;
  std::string certDir;
  std::string service = "attune-webhook";
  std::string namespace_;  // default: $POD_NAMESPACE, else attune-system
  std::string mutatingConfiguration = "attune-pod-sizing";
  std::string validatingConfiguration = "attune-policy-validation";
  std::string certValidity = "8760h";
  std::string rotateBefore = "720h";
  std::string refreshInterval = "10m";
  std::vector<std::string> certExtraNames;
};

struct ControllerFlags {
  OperatorProcessFlags process{.leaseName = "attune-leader"};
  std::string reconcileInterval = "1m";
  std::string scrapeInterval = "1m";
  std::string throttleWindow = "5m";
  std::vector<std::string> watchNamespaces;
  bool hpaGuard = false;
  std::string hpaGuardInterval = "1m";
  std::string statusHeartbeat = "5m";
  bool nodeLoadTaints = false;
  double nodeLoadThreshold = 1.0;
  bool oomRecovery = false;
  std::size_t maxResizesPerPass = 50;
  // Hidden: false makes every policy read its usage on its own (docs/scale.md measures both).
  bool prometheusSharedReads = true;
  // Usage reads of one pass sent to Prometheus at the same time (docs/prometheus.md).
  int prometheusParallelQueries = 2;
  // Each namespace reads a new query step at its own moment of it (docs/prometheus.md).
  bool prometheusSpreadReads = true;
  // The size of one usage read's parts, and of a pass group's reads (docs/prometheus.md,
  // docs/controller.md).
  std::size_t prometheusMaxSamplesPerQuery = metrics::PrometheusOptions{}.maxSamplesPerQuery;
  std::size_t passGroupSamples = controller::ControllerOptions{}.passGroupSamples;
  // Hidden: false sends every read to the API server, as LISTs per pass (the scale run's LIST
  // baseline, docs/scale.md).
  bool informerCache = true;
  WebhookFlags webhook;
  // Sharding (docs/sharding.md).
  std::optional<int> shard;
  int totalShards = 1;
  bool shardFromPodName = false;
  // The Kubernetes client's limit (docs/operator.md): client-go's flag names and meaning.
  std::string kubeApiQps = fmt::format("{}", kube::RateLimit{}.qps);
  std::string kubeApiBurst = std::to_string(kube::RateLimit{}.burst);
};

// Everything parsed from the flags before anything is started.
struct Settings {
  controller::LeaderElectionOptions election;
  Duration reconcileInterval{};
  safety::ObservationOptions observation;
  ListenAddress metricsAddress;
  Duration hpaGuardInterval{};
  Duration statusHeartbeat{};
  std::optional<ListenAddress> webhookAddress;
  SelfManagedCertificateOptions webhookCertificates;
  Duration webhookRefresh{};
  controller::ShardAssignment shard;
  kube::RateLimit kubeApi;
};

Result<void> webhookSettings(const WebhookFlags& f, Settings& s) {
  if (f.address.empty()) return {};
  auto address = parseListenAddress(f.address, "--webhook-address");
  if (!address) return std::unexpected(address.error());
  s.webhookAddress = *address;
  auto validity = positiveDuration(f.certValidity, "--webhook-cert-validity");
  auto rotate = positiveDuration(f.rotateBefore, "--webhook-cert-rotate-before");
  auto refresh = positiveDuration(f.refreshInterval, "--webhook-cert-refresh-interval");
  for (const auto* r : {&validity, &rotate, &refresh}) {
    if (!*r) return std::unexpected(r->error());
  }
  if (*rotate >= *validity) {
    return fail(ErrorCode::kInvalidArgument, "must be shorter than --webhook-cert-validity",
                "--webhook-cert-rotate-before");
  }
  std::string ns = f.namespace_;
  if (ns.empty()) {
    const char* pod = std::getenv("POD_NAMESPACE");
    ns = pod != nullptr && *pod != '\0' ? pod : "attune-system";
  }
  s.webhookCertificates = {.service = f.service,
                           .namespace_ = ns,
                           .mutatingConfiguration = f.mutatingConfiguration,
                           .validatingConfiguration = f.validatingConfiguration,
                           .validity = *validity,
                           .rotateBefore = *rotate,
                           .extraNames = f.certExtraNames};
  s.webhookRefresh = *refresh;
  return {};
}

// --shard, --total-shards, --shard-from-pod-name: the shard, its Lease, and what sharding rules
// out (docs/sharding.md).
Result<void> shardSettings(const ControllerFlags& f, Settings& s) {
  std::optional<std::string> podName;
  if (f.shardFromPodName) {
    podName = kube::processEnv("POD_NAME");
    if (!podName) {
      return fail(ErrorCode::kInvalidArgument,
                  "needs $POD_NAME (the downward API's metadata.name) to read the StatefulSet "
                  "ordinal from",
                  "--shard-from-pod-name");
    }
  }
  auto shard = controller::shardAssignment(f.shard, f.totalShards, podName);
  if (!shard) return std::unexpected(shard.error());
  s.shard = *shard;
  s.election.name = controller::shardLeaseName(s.election.name, s.shard);
  if (s.shard.sharded() && f.oomRecovery) {
    return fail(ErrorCode::kInvalidArgument,
                "cannot be used with --total-shards above 1: the pod webhook's sizing is not "
                "shared between shards, so an evicted pod would come back unsized",
                "--oom-recovery");
  }
  return {};
}

Result<Settings> settingsFrom(const ControllerFlags& f) {
  Settings s;
  auto election = electionOptions(f.process);
  if (!election) return std::unexpected(election.error());
  s.election = *election;
  auto interval = positiveDuration(f.reconcileInterval, "--reconcile-interval");
  auto scrape = positiveDuration(f.scrapeInterval, "--scrape-interval");
  auto throttle = positiveDuration(f.throttleWindow, "--throttle-window");
  auto guard = positiveDuration(f.hpaGuardInterval, "--hpa-guard-interval");
  auto heartbeat = positiveDuration(f.statusHeartbeat, "--status-heartbeat");
  for (const auto* r : {&interval, &scrape, &throttle, &guard, &heartbeat}) {
    if (!*r) return std::unexpected(r->error());
  }
  s.reconcileInterval = *interval;
  s.observation.sampleInterval = *scrape;
  s.observation.throttleWindow = *throttle;
  s.hpaGuardInterval = *guard;
  s.statusHeartbeat = *heartbeat;
  if (*throttle < 2 * *scrape) {
    return fail(ErrorCode::kInvalidArgument,
                "must hold at least two scrapes (2 x --scrape-interval = " +
                    formatDuration(2 * *scrape) + ")",
                "--throttle-window");
  }
  auto address = parseListenAddress(f.process.metricsAddress, "--metrics-address");
  if (!address) return std::unexpected(address.error());
  s.metricsAddress = *address;
  if (auto webhook = webhookSettings(f.webhook, s); !webhook) {
    return std::unexpected(webhook.error());
  }
  if (auto shard = shardSettings(f, s); !shard) return std::unexpected(shard.error());
  auto kubeApi =
      kube::parseRateLimit(f.kubeApiQps, f.kubeApiBurst, "--kube-api-qps", "--kube-api-burst");
  if (!kubeApi) return std::unexpected(kubeApi.error());
  s.kubeApi = *kubeApi;
  if (f.oomRecovery && !s.webhookAddress) {
    return fail(ErrorCode::kInvalidArgument,
                "needs --webhook-address: an evicted pod is only recreated with a higher memory "
                "limit when the pod webhook sizes it",
                "--oom-recovery");
  }
  return s;
}

// The webhook server: certificates refreshed on their own thread every `interval` (leader or
// not: every replica serves the webhooks), HTTPS with a short per-connection deadline.
class WebhookServer {
 public:
  static std::unique_ptr<WebhookServer> start(const ControllerFlags& f, const Settings& s,
                                              api::ClusterApi& api,
                                              controller::AdmissionSizing& sizing,
                                              metrics::Registry& registry, Clock& clock,
                                              Logger& log, Redactor& redactor) {
    auto out =
        std::unique_ptr<WebhookServer>(new WebhookServer(f, s, api, sizing, registry, clock, log));
    // Every serving and CA key is masked in the log, wherever it would appear.
    out->certificates_->onPrivateKey(
        [&redactor](std::string_view key) { redactor.addSecret(key); });
    // The port is bound first, closing connections until the first certificate is served, so a
    // client that sees the patched caBundle never finds the port closed.
    auto server = http::server::HttpServer::start(
        {.host = s.webhookAddress->host,
         .port = s.webhookAddress->port,
         .currentTls = [c = out->certificates_.get()] { return c->current(); },
         // An AdmissionReview carries the object and the old object: the API server's 3 MiB
         // request limit covers both. The API server gives up after timeoutSeconds (at most 30 s).
         .limits = {.maxBodyBytes = 4 * 1024 * 1024},
         .headerTimeout = std::chrono::seconds(10),
         .requestTimeout = std::chrono::seconds(10),
         .writeTimeout = std::chrono::seconds(10)},
        [e = &out->endpoints_](const http::server::HttpRequest& r) { return e->serve(r); });
    if (!server) {
      log.error("cannot serve the webhook address", {{"error", server.error().toString()}});
      return nullptr;
    }
    out->server_ = std::move(*server);
    out->refresh();
    if (out->certificates_->current() == nullptr) return nullptr;
    out->refresher_ = std::jthread([w = out.get()](std::stop_token stop) { w->loop(stop); });
    return out;
  }
  int port() const { return server_->port(); }
  ~WebhookServer() {
    refresher_.request_stop();
    if (refresher_.joinable()) refresher_.join();
    if (server_) server_->stop();
  }

 private:
  WebhookServer(const ControllerFlags& f, const Settings& s, api::ClusterApi& api,
                controller::AdmissionSizing& sizing, metrics::Registry& registry, Clock& clock,
                Logger& log)
      : clock_(clock),
        log_(log),
        interval_(s.webhookRefresh),
        certificates_(f.webhook.certDir.empty()
                          ? std::make_unique<WebhookCertificates>(api, s.webhookCertificates)
                          : std::make_unique<WebhookCertificates>(f.webhook.certDir)),
        endpoints_([&sizing](const api::WorkloadRef& w) { return sizing.lookup(w); }, registry,
                   clock) {}

  void refresh() {
    auto done = certificates_->refresh(clock_.now());
    if (!done) {
      log_.warn("webhook certificate refresh failed", {{"error", done.error().toString()}});
      return;
    }
    if (done->servingReplaced || done->bundlesPatched > 0) {
      log_.info("webhook certificate refreshed",
                {{"ca_replaced", done->caReplaced ? "true" : "false"},
                 {"bundles_patched", std::to_string(done->bundlesPatched)}});
    }
  }
  void loop(const std::stop_token& stop) {
    std::mutex mutex;
    std::condition_variable_any wake;
    while (!stop.stop_requested()) {
      std::unique_lock lock(mutex);
      if (wake.wait_for(lock, stop, interval_, [] { return false; })) break;
      if (stop.stop_requested()) break;
      lock.unlock();
      refresh();
    }
  }

  Clock& clock_;
  Logger& log_;
  Duration interval_;
  std::unique_ptr<WebhookCertificates> certificates_;
  WebhookEndpoints endpoints_;
  std::unique_ptr<http::server::HttpServer> server_;
  std::jthread refresher_;
};

struct Counter {
  PassSummary summary;
  void operator()(const controller::ActionRecord& a) {
    using Kind = controller::ActionRecord::Kind;
    if (a.kind == Kind::kResized) ++summary.resizes;
    if (a.kind == Kind::kResizeFailed) ++summary.resizesFailed;
    if (a.kind == Kind::kResizeSkipped) ++summary.resizesSkipped;
    if (a.kind == Kind::kReverted) ++summary.reverts;
  }
};

std::vector<std::string> namespacesOf(const std::vector<std::string>& watch) {
  return watch.empty() ? std::vector<std::string>{""} : watch;
}

int runController(const ControllerFlags& f) {
  configureMalloc();
  SystemClock clock;
  Redactor redactor;
  auto log = makeLogger(f.process, clock, redactor);
  if (!log) return kExitUsage;
  auto settings = settingsFrom(f);
  auto prometheusBase = settings ? prometheusOptions(f.process, *log, redactor)
                                 : Result<metrics::PrometheusOptions>();
  if (!settings || !prometheusBase) {
    log->error("invalid flags",
               {{"error", (!settings ? settings.error() : prometheusBase.error()).toString()}});
    return kExitUsage;
  }
  auto config = clusterConfig(f.process);
  if (!config) {
    log->error("cannot load the cluster configuration", {{"error", config.error().toString()}});
    return kExitFailed;
  }
  addSecrets(redactor, config->http);
  metrics::PrometheusOptions prometheus = *prometheusBase;
  // Rate windows hold at least two scrapes; the throttle ratio is read over the same window as
  // the safety monitor assumes.
  prometheus.minRateWindow = 2 * settings->observation.sampleInterval;
  prometheus.throttleWindow = settings->observation.throttleWindow;
  // Every query of the operator's Prometheus sources, booked as attune_prometheus_* metrics.
  metrics::Registry registry;
  metrics::PrometheusQueryMetrics queryMetrics(registry);
  prometheus.onQuery = queryMetrics.observer();
  prometheus.maxSamplesPerQuery = f.prometheusMaxSamplesPerQuery;

  const Wait wait = shutdownSignals();  // before any thread starts

  // --kube-api-qps / --kube-api-burst: each client below has a token bucket of its own.
  // Sharded: the namespaces this replica owns (empty: all).
  std::function<bool(std::string_view)> owned;
  if (settings->shard.sharded()) {
    owned = [shard = settings->shard](std::string_view ns) { return shard.owns(ns); };
  }
  kube::HttpClusterApiOptions directOptions;
  directOptions.rest.rateLimit = settings->kubeApi;
  // Sharded: the watches pass over the other shards' namespaces before decoding their objects
  // (the caches would drop them anyway), so a shard does not decode the whole cluster's churn.
  directOptions.watchNamespaceFilter = owned;
  // The status writes of controllerOptions.statusWriteBatch, and the plans of its
  // actuationBatch, go out on 4 connections at once.
  directOptions.parallelWrites = 4;
  kube::HttpClusterApi direct(*config, clock, directOptions);
  // The election thread's own client. One retry: the next election step is the retry, and a
  // step must not outlast the renew deadline.
  kube::HttpClusterApiOptions leaseOptions;
  leaseOptions.rest.rateLimit = settings->kubeApi;
  leaseOptions.rest.maxRetries = 1;
  kube::HttpClusterApi leaseApi(*config, clock, leaseOptions);
  kube::CachedClusterApiOptions cacheOptions;
  if (f.watchNamespaces.size() == 1) cacheOptions.namespace_ = f.watchNamespaces.front();
  // Every cached kind follows its watch at every poll (and is relisted every podResync); a kind
  // the API server would not watch is relisted once per pass.
  cacheOptions.listResync = settings->reconcileInterval;
  // Sharded: the caches hold the owned namespaces' objects only (nodes stay whole), so each
  // shard's memory is about 1/M of the cluster's (docs/sharding.md).
  cacheOptions.namespaceFilter = owned;
  cacheOptions.listEveryRead = !f.informerCache;
  kube::CachedClusterApi api(direct, clock, cacheOptions);
  metrics::PrometheusSource backend(prometheus, clock);
  // What the controller and its node-load monitor read through: closed while the check of the
  // backend made before each pass fails (checkBackend), so that the pass fails closed at once
  // instead of sending every policy's reads to a backend known to be down.
  metrics::GatedSource source(backend);
  // Policies with their own spec.metricsSource.prometheus: one pooled client per endpoint,
  // tokens read from their Secrets (directly, never cached) and masked in the log.
  metrics::PrometheusPool pool(prometheus, clock);
  controller::PolicyMetricsSources policySources(
      direct, source, pool, [&redactor](std::string_view secret) { redactor.addSecret(secret); });
  // SLO guardrails: instant queries against the same Prometheus as each policy's usage.
  metrics::PrometheusScalarQuery sloFallback(prometheus, clock);
  controller::PolicySloQueries sloQueries(policySources, pool, sloFallback, clock);
  controller::ControllerOptions controllerOptions;
  controllerOptions.watchNamespaces = f.watchNamespaces;
  controllerOptions.durationClock = &clock;
  controllerOptions.observation = settings->observation;
  controllerOptions.resyncPeriod = settings->reconcileInterval;
  controllerOptions.statusHeartbeat = settings->statusHeartbeat;
  // Heartbeats are written by the polls between passes (a tick apart): up to 200 a poll, within
  // 100 ms, is 12,000 a minute when the API server keeps up, three times what 10,000 policies'
  // heartbeats need at their busiest (HeartbeatBudget).
  controllerOptions.heartbeatsPerCall = 200;
  controllerOptions.heartbeatSlice = std::chrono::milliseconds(100);
  // The Events of skips too (1,000-odd at 100,000 pods in the pass after a first pass's
  // resizes): a pass does not wait on them, and a poll writes up to 200 of them first, within
  // its own 100 ms. Those of resizes, reverts and evictions are written with them.
  controllerOptions.eventsPerCall = 200;
  // Status writes go out 32 passes at a time, on 4 connections at once (directOptions'
  // parallelWrites): a pass after many changes (the one after a first pass's resizes, or one
  // that crosses a query step) does not wait on each write's round trip in turn.
  controllerOptions.statusWriteBatch = 32;
  // The plans that write (a resize is three requests, one after another: the pod's record, the
  // resize, the workload's cooldown) are carried out 64 policies at a time, on those 4
  // connections: a pass that resizes 1,000 pods does not wait on 3,000 round trips in turn.
  controllerOptions.actuationBatch = 64;
  // A wave of resizes (the pass after a first pass resizes a thousand pods at 100,000) is spread
  // over the polls that follow, 50 a call by default: about 0.6 s of writes against the
  // simulator, which serves them one at a time, so that a changed pod still waits for at most
  // that and its pass (docs/scale.md).
  controllerOptions.resizesPerCall = f.maxResizesPerPass;
  controller::AdmissionSizing admissionSizing;
  // Sharded, no replica knows every namespace's sizing: the pod webhook sizes nothing
  // (docs/sharding.md), and no pod is reported as having bypassed it.
  if (settings->webhookAddress && !settings->shard.sharded()) {
    controllerOptions.admissionSizing = &admissionSizing;
  }
  controllerOptions.oomRecovery = f.oomRecovery;
  controllerOptions.sharedUsageReads = f.prometheusSharedReads;
  controllerOptions.parallelUsageReads = static_cast<std::size_t>(f.prometheusParallelQueries);
  controllerOptions.spreadUsageReads = f.prometheusSpreadReads;
  controllerOptions.passGroupSamples = f.passGroupSamples;
  controllerOptions.metricsSources = &policySources;
  controllerOptions.sloQueries = &sloQueries;
  controllerOptions.shard = settings->shard;
  controllerOptions.reportingInstance = settings->election.identity;
  // Between groups of passes the pods unpacked for the last group are freed: a full pass holds
  // one group's, not every target pod's (docs/scale.md).
  controllerOptions.releasePods = [&api] { api.pods().releaseUnpacked(); };
  controller::Controller ctl(api, source, clock, registry, controllerOptions);
  metrics::MetricFamily& backendUp = registry.gauge(
      "attune_metrics_backend_up", "1 when the last check of the metrics backend succeeded", {});
  // --node-load-taints: taints are written on the nodes as read directly (their
  // resourceVersion is the precondition), with the controller's metrics source.
  std::unique_ptr<controller::EventRecorder> nodeEvents;
  std::unique_ptr<controller::NodeLoadMonitor> nodeLoad;
  // Nodes are cluster-scoped: their taints are shard 0's.
  if (f.nodeLoadTaints && settings->shard.ownsClusterScope()) {
    nodeEvents = std::make_unique<controller::EventRecorder>(direct, clock);
    nodeLoad = std::make_unique<controller::NodeLoadMonitor>(
        direct, source, *nodeEvents, registry, clock,
        controller::NodeLoadMonitorOptions{.threshold = f.nodeLoadThreshold,
                                           .interval = settings->reconcileInterval});
  }
  auto monitorNodeLoad = [&] {
    if (!nodeLoad) return;
    auto ran = nodeLoad->runDue();
    if (ran && !*ran) {
      log->warn("node-load monitor pass failed; no taint changed",
                {{"error", ran->error().toString()}});
    }
  };
  // --hpa-guard: the guard reads and writes HPAs directly (never a cached resourceVersion).
  std::unique_ptr<HpaGuardProcess> guard;
  if (f.hpaGuard) {
    guard = std::make_unique<HpaGuardProcess>(
        direct, prometheus, clock, registry, *log,
        controller::HpaGuardOptions{.namespaces = f.watchNamespaces,
                                    .shard = settings->shard,
                                    .interval = settings->hpaGuardInterval});
  }

  OperatorHealth health;
  OperatorLoopOptions loopOptions;
  loopOptions.reconcileInterval = settings->reconcileInterval;
  // Between passes the loop polls every second: a changed pod of a target is reconciled about a
  // second after its watch event arrives (the streams are read in the background; a poll with
  // nothing new reads no more than the caches' queues and the work queue).
  loopOptions.tick = std::min(settings->election.retryPeriod, Duration(std::chrono::seconds(1)));
  OperatorEndpoints endpoints{registry, health, clock, loopOptions.stallTimeout};
  auto server = serveEndpoints(settings->metricsAddress, endpoints, *log);
  if (!server) return kExitFailed;
  // Certificates are read and caBundles patched through the direct client (not cached).
  std::unique_ptr<WebhookServer> webhooks;
  if (settings->webhookAddress) {
    webhooks = WebhookServer::start(f, *settings, direct, admissionSizing, registry, clock, *log,
                                    redactor);
    if (!webhooks) {
      log->error("cannot start the webhook server", {});
      return kExitFailed;
    }
  }
  log->info(
      "starting",
      {{"server", config->server},
       {"context", config->context},
       {"metrics_address", fmt::format("{}:{}", settings->metricsAddress.host, (*server)->port())},
       {"identity", settings->election.identity},
       {"leader_elect", f.process.leaderElect ? "true" : "false"},
       {"lease", settings->election.namespace_ + "/" + settings->election.name},
       {"shard", fmt::format("{}/{}", settings->shard.shard, settings->shard.total)},
       {"kube_api_qps", settings->kubeApi.qps > 0 ? fmt::format("{}", settings->kubeApi.qps)
                                                  : std::string("unlimited")},
       {"kube_api_burst", std::to_string(settings->kubeApi.burst)},
       {"hpa_guard", f.hpaGuard ? "true" : "false"},
       {"node_load_taints", f.nodeLoadTaints ? "true" : "false"},
       {"webhook_address",
        webhooks ? fmt::format("{}:{}", settings->webhookAddress->host, webhooks->port()) : ""},
       {"watch_namespaces", fmt::format("{}", fmt::join(f.watchNamespaces, ","))}});

  // One cheap request (GET /version) before the caches' many LISTs, so an unreachable API server
  // fails in seconds (and SIGTERM is not kept waiting behind every informer's retries), and
  // before every pass, whose reads the caches answer: no pass acts on caches that can no longer
  // be brought up to date. (Not a LIST: one of every policy costs a decode of each at scale.)
  auto reachable = [&]() -> Result<void> {
    auto version = direct.getServerVersion();
    if (!version) return std::unexpected(version.error());
    return {};
  };
  // The check of the operator's own metrics backend (--prometheus-url): one query, exported as
  // attune_metrics_backend_up, and logged when its outcome changes.
  std::optional<bool> backendWasUp;
  auto checkBackend = [&] {
    auto probe = backend.nodeCapacity(clock.now());
    backendUp.set({}, probe ? 1 : 0);
    if (probe) {
      source.open();
    } else {
      source.close(Error{probe.error().code,
                         "the metrics backend check failed: " + probe.error().toString()});
    }
    if (backendWasUp == probe.has_value()) return;
    backendWasUp = probe.has_value();
    if (probe) {
      log->info("metrics backend reachable", {{"url", f.process.prometheusUrl}});
    } else {
      log->warn("metrics backend check failed; no resizes until it answers",
                {{"url", f.process.prometheusUrl}, {"error", probe.error().toString()}});
    }
  };
  auto readiness = [&]() -> Result<void> {
    if (auto ok = reachable(); !ok) return ok;
    if (auto synced = api.sync(); !synced) return synced;
    for (const std::string& ns : namespacesOf(f.watchNamespaces)) {
      if (auto listed = api.listAttunePolicies({ns, {}}); !listed) {
        return std::unexpected(listed.error());
      }
    }
    // The metrics check does not hold readiness back (passes fail closed while the backend is
    // down); it is made again before every pass.
    checkBackend();
    return {};
  };
  // A pass's freed memory is handed back to the system (malloc_trim: tens of milliseconds at
  // 100,000 pods, most of it TLB flushes) by the poll that follows it, after the poll's own work:
  // not inside the pass, and not after every poll. Passes run back to back trim at the start of
  // the next one.
  bool trimDue = false;
  auto trimIfDue = [&trimDue] {
    if (!trimDue) return;
    releaseFreeMemory();
    trimDue = false;
  };
  auto pass = [&]() -> Result<PassSummary> {
    trimIfDue();
    if (guard) guard->runDue();
    monitorNodeLoad();
    if (auto ok = reachable(); !ok) return std::unexpected(ok.error());
    checkBackend();
    if (auto synced = api.sync(); !synced) return std::unexpected(synced.error());
    Counter counter;
    ctl.setObserver([&counter](const controller::ActionRecord& a) { counter(a); });
    auto done = ctl.reconcileAll();
    ctl.setObserver(nullptr);
    if (!done) return std::unexpected(done.error());
    counter.summary.policies = ctl.policyCount();
    trimDue = true;
    // Every policy was reconciled: a pooled client none of them used is no longer configured.
    if (const std::size_t dropped = policySources.dropUnused(); dropped > 0) {
      log->debug("dropped unused Prometheus clients", {{"count", std::to_string(dropped)}});
    }
    return counter.summary;
  };
  // Between passes: the pod watch drained into the cache, then whatever the work queue has due
  // (a new or changed pod of a target, a policy change, a requeue time), and the HPA guard
  // when its interval has passed.
  auto poll = [&]() -> Result<PassSummary> {
    if (guard) guard->runDue();
    monitorNodeLoad();
    if (auto synced = api.sync(); !synced) return std::unexpected(synced.error());
    Counter counter;
    ctl.setObserver([&counter](const controller::ActionRecord& a) { counter(a); });
    auto done = ctl.reconcileDue();
    ctl.setObserver(nullptr);
    if (!done) return std::unexpected(done.error());
    counter.summary.policies = ctl.reconciledLastCall();
    counter.summary.named = ctl.namedLastCall();
    trimIfDue();
    return counter.summary;
  };
  runUntilShutdown(f.process, settings->election, leaseApi, clock, *log, registry, health,
                   loopOptions, {pass, poll, readiness}, wait, **server);
  // The Events and status writes the last passes held and no poll wrote: written before
  // exiting, within 5 s each (a fraction of a Pod's default 30 s of grace). A status write
  // another replica's overtook is refused (it carries the resourceVersion its pass read).
  if (const std::size_t held = ctl.events().held(); held > 0) {
    ctl.flushEvents(held, std::chrono::seconds(5));
    log->info("held events written",
              {{"events", std::to_string(held)}, {"left", std::to_string(ctl.events().held())}});
  }
  if (const std::size_t held = ctl.heldStatusWrites(); held > 0) {
    ctl.flushStatusWrites(held, std::chrono::seconds(5));
    log->info("held status writes made",
              {{"writes", std::to_string(held)}, {"left", std::to_string(ctl.heldStatusWrites())}});
  }
  return kExitOk;
}

}  // namespace

void addWebhookFlags(CLI::App& cmd, WebhookFlags& w) {
  cmd.add_option("--webhook-address", w.address,
                 "Serve the admission webhooks (HTTPS: /mutate-pods, /validate-attunepolicies) "
                 "on HOST:PORT or :PORT; off when empty (docs/webhooks.md)");
  cmd.add_option("--webhook-cert-dir", w.certDir,
                 "Serve tls.crt/tls.key from this directory (a mounted kubernetes.io/tls "
                 "Secret), reloaded when they change; default: a self-managed CA and "
                 "certificate, with caBundle patched");
  cmd.add_option("--webhook-service", w.service,
                 "The webhook Service (names of the self-managed certificate)")
      ->capture_default_str();
  cmd.add_option("--webhook-namespace", w.namespace_,
                 "The webhook Service's namespace (default: $POD_NAMESPACE, else attune-system)");
  cmd.add_option("--webhook-mutating-configuration", w.mutatingConfiguration,
                 "The MutatingWebhookConfiguration whose caBundle is kept up to date")
      ->capture_default_str();
  cmd.add_option("--webhook-validating-configuration", w.validatingConfiguration,
                 "The ValidatingWebhookConfiguration whose caBundle is kept up to date")
      ->capture_default_str();
  cmd.add_option("--webhook-cert-validity", w.certValidity,
                 "Validity of a self-managed serving certificate (its CA: 10 times this)")
      ->capture_default_str();
  cmd.add_option("--webhook-cert-rotate-before", w.rotateBefore,
                 "Replace the serving certificate when less than this is left")
      ->capture_default_str();
  cmd.add_option("--webhook-cert-extra-name", w.certExtraNames,
                 "Another name (DNS or IP) of the self-managed serving certificate, for an "
                 "operator reached through clientConfig.url (repeatable or comma-separated)")
      ->take_all()
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd.add_option("--webhook-cert-refresh-interval", w.refreshInterval,
                 "How often the certificate is checked (rotation, caBundle, changed files)")
      ->capture_default_str();
}

void addControllerCommand(CLI::App& app, int& exitCode) {
  auto f = std::make_shared<ControllerFlags>();
  auto* cmd = app.add_subcommand(
      "controller",
      "Run the operator against a cluster: reconcile AttunePolicies, with leader election, "
      "/metrics /healthz /readyz, and graceful shutdown on SIGTERM (docs/operator.md).");
  addOperatorProcessFlags(*cmd, f->process);
  cmd->add_option("--reconcile-interval", f->reconcileInterval,
                  "Time between reconcile passes while leader")
      ->capture_default_str();
  cmd->add_option("--scrape-interval", f->scrapeInterval,
                  "How often Prometheus scrapes the cAdvisor counters (rate windows hold at least "
                  "two scrapes; an observation period ends a scrape after the throttle window)")
      ->capture_default_str();
  cmd->add_option("--throttle-window", f->throttleWindow,
                  "Window of the CPU throttle ratio checked at the end of an observation period "
                  "(observation periods last at least this plus one scrape interval)")
      ->capture_default_str();
  cmd->add_option(
         "--watch-namespace", f->watchNamespaces,
         "Reconcile policies in this namespace only (repeatable or comma-separated; default: all)")
      ->take_all()
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_flag("--hpa-guard", f->hpaGuard,
                "Also run the HPA guard (docs/hpa.md) on HPAs annotated estafette.io/hpa-scaler, "
                "while leader");
  cmd->add_option("--status-heartbeat", f->statusHeartbeat,
                  "A policy whose status has nothing new but its reconcile time is written at "
                  "most this often: status.lastReconcileTime is at most this old while the "
                  "controller leads")
      ->capture_default_str();
  cmd->add_option("--max-resizes-per-pass", f->maxResizesPerPass,
                  "At most this many in-place resizes per pass or work-queue run; the others "
                  "are decided again by the next poll, a second later, so that a wave of "
                  "resizes is spread out and a changed pod is not kept waiting (0: no limit; "
                  "reverts and evictions are never held back)")
      ->capture_default_str();
  cmd->add_option("--hpa-guard-interval", f->hpaGuardInterval,
                  "Time between HPA guard passes (with --hpa-guard)")
      ->capture_default_str();
  cmd->add_flag(
      "--node-load-taints", f->nodeLoadTaints,
      "Taint nodes whose node_load1 per CPU core is above --node-load-threshold with "
      "attune.io/node-overloaded:NoSchedule, and untaint them below it (docs/node-load.md)");
  cmd->add_option("--node-load-threshold", f->nodeLoadThreshold,
                  "node_load1 / CPU cores above which a node is tainted (with --node-load-taints)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  addWebhookFlags(*cmd, f->webhook);
  cmd->add_option("--shard", f->shard,
                  "This replica's shard, 0 to --total-shards - 1: only the policies of the "
                  "namespaces it owns are reconciled (docs/sharding.md)");
  cmd->add_option("--total-shards", f->totalShards,
                  "The number of shards; each elects its leader on the Lease "
                  "<--leader-election-id>-shard-<N>")
      ->capture_default_str();
  cmd->add_flag("--shard-from-pod-name", f->shardFromPodName,
                "Take the shard from $POD_NAME's StatefulSet ordinal, modulo --total-shards "
                "(a StatefulSet of k x M replicas runs k replicas of every shard)");
  cmd->add_option("--kube-api-qps", f->kubeApiQps,
                  "Requests per second the Kubernetes client may send, as client-go's QPS (a "
                  "negative value, e.g. -1, turns the client-side limit off)")
      ->capture_default_str();
  cmd->add_option("--kube-api-burst", f->kubeApiBurst,
                  "Requests the Kubernetes client may send back to back above --kube-api-qps, "
                  "as client-go's burst (1 to 1000000)")
      ->capture_default_str();
  cmd->add_flag("--oom-recovery", f->oomRecovery,
                "Evict OOM-killed pods of managed workloads for recreation, their memory at the "
                "kill recorded on the workload for the pod webhook's sizing (needs "
                "--webhook-address; docs/oom-recovery.md)");
  cmd->add_option("--prometheus-parallel-queries", f->prometheusParallelQueries,
                  "Usage queries a pass sends to Prometheus at the same time, each namespace's "
                  "read on a connection of its own (1 to 16; docs/prometheus.md)")
      ->check(CLI::Range(1, 16))
      ->capture_default_str();
  cmd->add_option("--prometheus-spread-reads", f->prometheusSpreadReads,
                  "Each namespace's policies read a new query step at their own moment of it, "
                  "up to one step late, so that the namespaces' reads are spread over the "
                  "step's passes, not all made in one (false: every namespace reads each step "
                  "in the first pass after it; docs/prometheus.md)")
      ->capture_default_str();
  cmd->add_option("--prometheus-max-samples-per-query", f->prometheusMaxSamplesPerQuery,
                  "A usage read over a long range is sent in parts of about this many samples "
                  "(series x points), so that one answer's decoded points stay small; 0: parts "
                  "only where Prometheus requires them (11,000 steps; docs/prometheus.md)")
      ->capture_default_str();
  cmd->add_option("--pass-group-samples", f->passGroupSamples,
                  "A pass works through its policies in groups; a group also closes once its "
                  "namespaces' usage reads come to this many samples a metric (pods x steps), "
                  "which bounds the history a first pass holds at once (docs/controller.md)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--prometheus-shared-reads", f->prometheusSharedReads,
                  "The policies of one namespace share one usage read per pass (false: each "
                  "reads on its own; docs/controller.md)")
      ->group("");
  cmd->add_option("--informer-cache", f->informerCache,
                  "Read the cluster from informer caches that follow watches (false: every read "
                  "is a request to the API server, LISTs every pass; docs/scale.md)")
      ->group("");
  cmd->callback([f, &exitCode] { exitCode = runController(*f); });
}

}  // namespace attune::cli
