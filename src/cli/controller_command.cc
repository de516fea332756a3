// `attune controller`: the operator. Runs the controller core against a cluster (kubeconfig or
// in-cluster), with leader election on a Lease, /metrics /healthz /readyz, graceful shutdown on
// SIGTERM/SIGINT, and redacted text or JSON logs (docs/operator.md).
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/logging.h"
#include "cli/operator_endpoints.h"
#include "cli/operator_loop.h"
#include "controller/controller.h"
#include "controller/leader_election.h"
#include "http/http_server.h"
#include "kube/cached_cluster_api.h"
#include "kube/http_cluster_api.h"
#include "kube/kubeconfig.h"
#include "metrics/exposition/registry.h"
#include "metrics/prometheus/prometheus_source.h"
#include "safety/observation.h"

namespace attune::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

struct ControllerFlags {
  std::string kubeconfig;
  std::string context;
  std::string prometheusUrl;
  std::string prometheusTokenFile;
  std::string metricsAddress = ":8080";
  bool leaderElect = true;
  std::string leaseNamespace;
  std::string leaseName = "attune-leader";
  std::string leaseDuration = "15s";
  std::string renewDeadline = "10s";
  std::string retryPeriod = "2s";
  std::string identity;
  std::string reconcileInterval = "1m";
  std::string scrapeInterval = "1m";
  std::string throttleWindow = "5m";
  std::vector<std::string> watchNamespaces;
  std::string logFormat = "text";
  std::string logLevel = "info";
};

// Everything parsed from the flags before anything is started.
struct Settings {
  controller::LeaderElectionOptions election;
  Duration reconcileInterval{};
  safety::ObservationOptions observation;
  ListenAddress metricsAddress;
};

Result<Duration> positiveDuration(const std::string& text, const std::string& flag) {
  auto d = parseDuration(text);
  if (!d || *d <= Duration::zero()) {
    return fail(ErrorCode::kInvalidArgument,
                "want a positive duration such as 2s or 1m, got \"" + text + "\"", flag);
  }
  return *d;
}

std::string defaultIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return fmt::format("{}_{}", host[0] != '\0' ? host : "attune", getpid());
}

Result<Settings> settingsFrom(const ControllerFlags& f) {
  Settings s;
  auto& e = s.election;
  e.namespace_ = f.leaseNamespace;
  if (e.namespace_.empty()) e.namespace_ = kube::processEnv("POD_NAMESPACE").value_or("");
  if (e.namespace_.empty()) e.namespace_ = "attune-system";
  e.name = f.leaseName;
  e.identity = f.identity.empty() ? defaultIdentity() : f.identity;
  auto lease = positiveDuration(f.leaseDuration, "--lease-duration");
  auto renew = positiveDuration(f.renewDeadline, "--renew-deadline");
  auto retry = positiveDuration(f.retryPeriod, "--retry-period");
  auto interval = positiveDuration(f.reconcileInterval, "--reconcile-interval");
  auto scrape = positiveDuration(f.scrapeInterval, "--scrape-interval");
  auto throttle = positiveDuration(f.throttleWindow, "--throttle-window");
  for (const auto* r : {&lease, &renew, &retry, &interval, &scrape, &throttle}) {
    if (!*r) return std::unexpected(r->error());
  }
  e.leaseDuration = *lease;
  e.renewDeadline = *renew;
  e.retryPeriod = *retry;
  s.reconcileInterval = *interval;
  s.observation.sampleInterval = *scrape;
  s.observation.throttleWindow = *throttle;
  if (*throttle < 2 * *scrape) {
    return fail(ErrorCode::kInvalidArgument,
                "must hold at least two scrapes (2 x --scrape-interval = " +
                    formatDuration(2 * *scrape) + ")",
                "--throttle-window");
  }
  if (auto ok = controller::validate(e); !ok) {
    const std::string& field = ok.error().field;
    const std::string flag = field == "leaseDuration"   ? "--lease-duration"
                             : field == "renewDeadline" ? "--renew-deadline"
                             : field == "retryPeriod"   ? "--retry-period"
                             : field == "identity"      ? "--identity"
                             : field == "namespace"     ? "--leader-election-namespace"
                                                        : "--leader-election-id";
    return fail(ErrorCode::kInvalidArgument, ok.error().message, flag);
  }
  auto address = parseListenAddress(f.metricsAddress, "--metrics-address");
  if (!address) return std::unexpected(address.error());
  s.metricsAddress = *address;
  if (f.prometheusUrl.empty()) {
    return fail(ErrorCode::kInvalidArgument, "is required", "--prometheus-url");
  }
  return s;
}

// Registers the contents of `path` (a token or key file) as a secret, when it can be read.
void addFileSecret(Redactor& redactor, const std::filesystem::path& path) {
  if (path.empty()) return;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  redactor.addSecret(text.str());
}

void addSecrets(Redactor& redactor, const http::HttpClientOptions& http) {
  redactor.addSecret(http.bearerToken);
  redactor.addSecret(http.clientKeyData);
  if (http.basicAuth) redactor.addSecret(http.basicAuth->password);
  addFileSecret(redactor, http.bearerTokenFile);
  addFileSecret(redactor, http.clientKeyFile);
}

// The cluster to talk to: --kubeconfig (with --context), else $KUBECONFIG, else in-cluster
// when KUBERNETES_SERVICE_HOST is set, else ~/.kube/config.
Result<kube::ClusterConfig> clusterConfig(const ControllerFlags& f) {
  if (!f.kubeconfig.empty()) return kube::loadKubeconfig(f.kubeconfig, f.context);
  const bool inCluster = kube::processEnv("KUBERNETES_SERVICE_HOST").has_value();
  if (!kube::processEnv("KUBECONFIG").has_value() && inCluster && f.context.empty()) {
    return kube::loadInClusterConfig();
  }
  const std::filesystem::path path = kube::defaultKubeconfigPath();
  if (path.empty() || !std::filesystem::exists(path)) {
    return fail(ErrorCode::kNotFound,
                "no cluster configuration: pass --kubeconfig FILE, set KUBECONFIG, or run in a "
                "pod (KUBERNETES_SERVICE_HOST is not set)",
                "--kubeconfig");
  }
  return kube::loadKubeconfig(path, f.context);
}

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
  auto format = parseLogFormat(f.logFormat);
  auto level = parseLogLevel(f.logLevel);
  if (!format || !level) {
    fmt::print(stderr, "{}\n", (!format ? format.error() : level.error()).toString());
    return kExitUsage;
  }
  SystemClock clock;
  Redactor redactor;
  Logger log(*format, *level, clock, redactor);
  auto settings = settingsFrom(f);
  if (!settings) {
    log.error("invalid flags", {{"error", settings.error().toString()}});
    return kExitUsage;
  }
  auto config = clusterConfig(f);
  if (!config) {
    log.error("cannot load the cluster configuration", {{"error", config.error().toString()}});
    return kExitFailed;
  }
  addSecrets(redactor, config->http);
  metrics::PrometheusOptions prometheus;
  prometheus.client.address = f.prometheusUrl;
  prometheus.client.retries = 1;  // a pass fails closed quickly when Prometheus is down
  prometheus.client.onWarning = [&log](std::string_view promql, std::string_view warning) {
    log.warn("prometheus warning",
             {{"warning", std::string(warning)}, {"query", std::string(promql)}});
  };
  prometheus.http.bearerTokenFile = f.prometheusTokenFile;
  // Rate windows hold at least two scrapes; the throttle ratio is read over the same window as
  // the safety monitor assumes.
  prometheus.minRateWindow = 2 * settings->observation.sampleInterval;
  prometheus.throttleWindow = settings->observation.throttleWindow;
  addFileSecret(redactor, prometheus.http.bearerTokenFile);

  // SIGINT and SIGTERM are taken with sigtimedwait: block them before any thread starts.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  kube::HttpClusterApi direct(*config, clock);
  // The election thread's own client. One retry: the next election step is the retry, and a
  // step must not outlast the renew deadline.
  kube::HttpClusterApiOptions leaseOptions;
  leaseOptions.rest.maxRetries = 1;
  kube::HttpClusterApi leaseApi(*config, clock, leaseOptions);
  kube::CachedClusterApiOptions cacheOptions;
  if (f.watchNamespaces.size() == 1) cacheOptions.namespace_ = f.watchNamespaces.front();
  // Pods follow their watch at every poll; the other kinds are relisted once per pass.
  cacheOptions.listResync = settings->reconcileInterval;
  kube::CachedClusterApi api(direct, clock, cacheOptions);
  metrics::PrometheusSource source(std::move(prometheus), clock);
  metrics::Registry registry;
  controller::ControllerOptions controllerOptions;
  controllerOptions.watchNamespaces = f.watchNamespaces;
  controllerOptions.durationClock = &clock;
  controllerOptions.observation = settings->observation;
  controllerOptions.resyncPeriod = settings->reconcileInterval;
  controller::Controller ctl(api, source, clock, registry, controllerOptions);
  metrics::MetricFamily& backendUp = registry.gauge(
      "attune_metrics_backend_up", "1 when the last check of the metrics backend succeeded", {});

  OperatorHealth health;
  OperatorLoopOptions loopOptions;
  loopOptions.reconcileInterval = settings->reconcileInterval;
  loopOptions.tick = std::min(settings->election.retryPeriod, Duration(std::chrono::seconds(2)));
  OperatorEndpoints endpoints{registry, health, clock, loopOptions.stallTimeout};
  auto server = http::server::HttpServer::start(
      {settings->metricsAddress.host, settings->metricsAddress.port, nullptr},
      [&endpoints](const http::server::HttpRequest& r) { return endpoints.serve(r); });
  if (!server) {
    log.error("cannot serve the metrics address", {{"error", server.error().toString()}});
    return kExitFailed;
  }
  log.info(
      "starting",
      {{"server", config->server},
       {"context", config->context},
       {"metrics_address", fmt::format("{}:{}", settings->metricsAddress.host, (*server)->port())},
       {"identity", settings->election.identity},
       {"leader_elect", f.leaderElect ? "true" : "false"},
       {"watch_namespaces", fmt::format("{}", fmt::join(f.watchNamespaces, ","))}});

  // One cheap request before the caches' many LISTs, so an unreachable API server fails in
  // seconds (and SIGTERM is not kept waiting behind every informer's retries).
  auto reachable = [&]() -> Result<void> {
    auto listed = direct.listAttunePolicies({namespacesOf(f.watchNamespaces).front(), {}});
    if (!listed) return std::unexpected(listed.error());
    return {};
  };
  auto readiness = [&]() -> Result<void> {
    if (auto ok = reachable(); !ok) return ok;
    if (auto synced = api.sync(); !synced) return synced;
    for (const std::string& ns : namespacesOf(f.watchNamespaces)) {
      if (auto listed = api.listAttunePolicies({ns, {}}); !listed) {
        return std::unexpected(listed.error());
      }
    }
    // The metrics check is made once at start; its outcome is logged and exported, and does
    // not hold readiness back (passes fail closed while the backend is down).
    auto probe = source.nodeCapacity(clock.now());
    backendUp.set({}, probe ? 1 : 0);
    if (probe) {
      log.info("metrics backend reachable", {{"url", f.prometheusUrl}});
    } else {
      log.warn("metrics backend check failed; no resizes until it answers",
               {{"url", f.prometheusUrl}, {"error", probe.error().toString()}});
    }
    return {};
  };
  auto pass = [&]() -> Result<PassSummary> {
    if (auto ok = reachable(); !ok) return std::unexpected(ok.error());
    if (auto synced = api.sync(); !synced) return std::unexpected(synced.error());
    Counter counter;
    ctl.setObserver([&counter](const controller::ActionRecord& a) { counter(a); });
    for (const std::string& ns : namespacesOf(f.watchNamespaces)) {
      if (auto listed = api.listAttunePolicies({ns, {}}); listed) {
        counter.summary.policies += listed->items.size();
      }
    }
    auto done = ctl.reconcileAll();
    ctl.setObserver(nullptr);
    if (!done) return std::unexpected(done.error());
    return counter.summary;
  };
  // Between passes: the pod watch drained into the cache, then whatever the work queue has due
  // (a new or changed pod of a target, a policy change, a requeue time).
  auto poll = [&]() -> Result<PassSummary> {
    if (auto synced = api.sync(); !synced) return std::unexpected(synced.error());
    Counter counter;
    ctl.setObserver([&counter](const controller::ActionRecord& a) { counter(a); });
    auto done = ctl.reconcileDue();
    ctl.setObserver(nullptr);
    if (!done) return std::unexpected(done.error());
    counter.summary.policies = ctl.reconciledLastCall();
    return counter.summary;
  };
  auto wait = [&signals](Duration d) {
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(d);
    const timespec timeout{static_cast<time_t>(s.count()),
                           static_cast<long>(std::chrono::nanoseconds(d - s).count())};
    const int got = sigtimedwait(&signals, nullptr, &timeout);
    return got == SIGINT || got == SIGTERM;
  };

  if (f.leaderElect) {
    controller::LeaderElector elector(leaseApi, clock, settings->election);
    ElectionDriver driver(elector, clock, log, registry);
    OperatorLoop loop(
        clock, [&driver] { return driver.leader(); }, pass, readiness, log, health, loopOptions);
    loop.setPoll(poll);
    runThreaded(loop, driver, clock, wait, log);
  } else {
    OperatorLoop loop(
        clock, [] { return true; }, pass, readiness, log, health, loopOptions);
    loop.setPoll(poll);
    runInline(loop, nullptr, wait, log);
  }
  (*server)->stop();
  log.info("stopped");
  return kExitOk;
}

}  // namespace

void addControllerCommand(CLI::App& app, int& exitCode) {
  auto f = std::make_shared<ControllerFlags>();
  auto* cmd = app.add_subcommand(
      "controller",
      "Run the operator against a cluster: reconcile AttunePolicies, with leader election, "
      "/metrics /healthz /readyz, and graceful shutdown on SIGTERM (docs/operator.md).");
  cmd->add_option("--kubeconfig", f->kubeconfig,
                  "Kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--context", f->context, "Kubeconfig context (default: current-context)");
  cmd->add_option("--prometheus-url", f->prometheusUrl,
                  "Prometheus-compatible HTTP API base URL (required)");
  cmd->add_option("--prometheus-bearer-token-file", f->prometheusTokenFile,
                  "File holding a bearer token for the Prometheus API (re-read on change)");
  cmd->add_option("--metrics-address", f->metricsAddress,
                  "HOST:PORT (or :PORT) serving /metrics, /healthz and /readyz")
      ->capture_default_str();
  cmd->add_flag("--leader-elect{true}", f->leaderElect,
                "Elect a leader on a Lease; only the leader reconciles (--leader-elect=false: "
                "this replica always reconciles)")
      ->capture_default_str();
  cmd->add_option("--leader-election-namespace", f->leaseNamespace,
                  "Namespace of the Lease (default: $POD_NAMESPACE, else attune-system)");
  cmd->add_option("--leader-election-id", f->leaseName, "Name of the Lease")->capture_default_str();
  cmd->add_option("--lease-duration", f->leaseDuration,
                  "How long a lease lasts without renewal before a standby takes it")
      ->capture_default_str();
  cmd->add_option("--renew-deadline", f->renewDeadline,
                  "The leader steps down when it has not renewed for this long")
      ->capture_default_str();
  cmd->add_option("--retry-period", f->retryPeriod, "Time between leader-election attempts")
      ->capture_default_str();
  cmd->add_option("--identity", f->identity,
                  "This replica's identity in the Lease (default: HOSTNAME_PID)");
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
  cmd->add_option("--log-format", f->logFormat, "Log lines as text or json")->capture_default_str();
  cmd->add_option("--log-level", f->logLevel, "debug, info, warn or error")->capture_default_str();
  cmd->callback([f, &exitCode] { exitCode = runController(*f); });
}

}  // namespace attune::cli
