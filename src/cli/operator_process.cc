#include "cli/operator_process.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attune::cli {
namespace {

std::string defaultIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return fmt::format("{}_{}", host[0] != '\0' ? host : "attune", getpid());
}

// Registers the contents of `path` (a token or key file) as a secret, when it can be read.
void addFileSecret(Redactor& redactor, const std::filesystem::path& path) {
  if (path.empty()) return;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  redactor.addSecret(text.str());
}

}  // namespace

std::unique_ptr<Logger> makeLogger(const OperatorProcessFlags& f, Clock& clock,
                                   const Redactor& redactor) {
  auto format = parseLogFormat(f.logFormat);
  auto level = parseLogLevel(f.logLevel);
  if (!format || !level) {
    fmt::print(stderr, "{}\n", (!format ? format.error() : level.error()).toString());
    return nullptr;
  }
  return std::make_unique<Logger>(*format, *level, clock, redactor);
}

void addOperatorProcessFlags(CLI::App& cmd, OperatorProcessFlags& f) {
  cmd.add_option("--kubeconfig", f.kubeconfig,
                 "Kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd.add_option("--context", f.context, "Kubeconfig context (default: current-context)");
  cmd.add_option("--prometheus-url", f.prometheusUrl,
                 "Prometheus-compatible HTTP API base URL (required)");
  cmd.add_option("--prometheus-bearer-token-file", f.prometheusTokenFile,
                 "File holding a bearer token for the Prometheus API (re-read on change)");
  cmd.add_option("--prometheus-ca-file", f.prometheusCaFile,
                 "PEM bundle verifying https Prometheus servers, --prometheus-url's and every "
                 "policy's spec.metricsSource.prometheus.address (default: the system store)");
  cmd.add_option("--metrics-address", f.metricsAddress,
                 "HOST:PORT (or :PORT) serving /metrics, /healthz and /readyz")
      ->capture_default_str();
  cmd.add_flag("--leader-elect{true}", f.leaderElect,
               "Elect a leader on a Lease; only the leader acts (--leader-elect=false: this "
               "replica always acts)")
      ->capture_default_str();
  cmd.add_option("--leader-election-namespace", f.leaseNamespace,
                 "Namespace of the Lease (default: $POD_NAMESPACE, else attune-system)");
  cmd.add_option("--leader-election-id", f.leaseName, "Name of the Lease")->capture_default_str();
  cmd.add_option("--lease-duration", f.leaseDuration,
                 "How long a lease lasts without renewal before a standby takes it")
      ->capture_default_str();
  cmd.add_option("--renew-deadline", f.renewDeadline,
                 "The leader steps down when it has not renewed for this long")
      ->capture_default_str();
  cmd.add_option("--retry-period", f.retryPeriod, "Time between leader-election attempts")
      ->capture_default_str();
  cmd.add_option("--identity", f.identity,
                 "This replica's identity in the Lease (default: HOSTNAME_PID)");
  cmd.add_option("--log-format", f.logFormat, "Log lines as text or json")->capture_default_str();
  cmd.add_option("--log-level", f.logLevel, "debug, info, warn or error")->capture_default_str();
}

Result<Duration> positiveDuration(const std::string& text, const std::string& flag) {
  auto d = parseDuration(text);
  if (!d || *d <= Duration::zero()) {
    return fail(ErrorCode::kInvalidArgument,
                "want a positive duration such as 2s or 1m, got \"" + text + "\"", flag);
  }
  return *d;
}

Result<controller::LeaderElectionOptions> electionOptions(const OperatorProcessFlags& f) {
  controller::LeaderElectionOptions e;
  e.namespace_ = f.leaseNamespace;
  if (e.namespace_.empty()) e.namespace_ = kube::processEnv("POD_NAMESPACE").value_or("");
  if (e.namespace_.empty()) e.namespace_ = "attune-system";
  e.name = f.leaseName;
  e.identity = f.identity.empty() ? defaultIdentity() : f.identity;
  auto lease = positiveDuration(f.leaseDuration, "--lease-duration");
  auto renew = positiveDuration(f.renewDeadline, "--renew-deadline");
  auto retry = positiveDuration(f.retryPeriod, "--retry-period");
  for (const auto* r : {&lease, &renew, &retry}) {
    if (!*r) return std::unexpected(r->error());
  }
  e.leaseDuration = *lease;
  e.renewDeadline = *renew;
  e.retryPeriod = *retry;
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
  return e;
}

Result<kube::ClusterConfig> clusterConfig(const OperatorProcessFlags& f) {
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

void addSecrets(Redactor& redactor, const http::HttpClientOptions& http) {
  redactor.addSecret(http.bearerToken);
  redactor.addSecret(http.clientKeyData);
  if (http.basicAuth) redactor.addSecret(http.basicAuth->password);
  addFileSecret(redactor, http.bearerTokenFile);
  addFileSecret(redactor, http.clientKeyFile);
}

Result<metrics::PrometheusOptions> prometheusOptions(const OperatorProcessFlags& f, Logger& log,
                                                     Redactor& redactor) {
  if (f.prometheusUrl.empty()) {
    return fail(ErrorCode::kInvalidArgument, "is required", "--prometheus-url");
  }
  metrics::PrometheusOptions prometheus;
  prometheus.client.address = f.prometheusUrl;
  prometheus.client.retries = 1;  // a pass fails closed quickly when Prometheus is down
  prometheus.client.onWarning = [&log](std::string_view promql, std::string_view warning) {
    log.warn("prometheus warning",
             {{"warning", std::string(warning)}, {"query", std::string(promql)}});
  };
  prometheus.http.bearerTokenFile = f.prometheusTokenFile;
  prometheus.http.caFile = f.prometheusCaFile;
  addFileSecret(redactor, prometheus.http.bearerTokenFile);
  addUrlPassword(redactor, f.prometheusUrl);
  return prometheus;
}

Wait shutdownSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return [signals](Duration d) {
    const auto s = std::chrono::duration_cast<std::chrono::seconds>(d);
    const timespec timeout{static_cast<time_t>(s.count()),
                           static_cast<long>(std::chrono::nanoseconds(d - s).count())};
    const int got = sigtimedwait(&signals, nullptr, &timeout);
    return got == SIGINT || got == SIGTERM;
  };
}

Result<std::unique_ptr<http::server::HttpServer>> serveEndpoints(const ListenAddress& address,
                                                                 OperatorEndpoints& endpoints,
                                                                 Logger& log) {
  // Scrapes and probes are small GETs: a small body limit.
  auto server = http::server::HttpServer::start(
      {.host = address.host, .port = address.port, .limits = {.maxBodyBytes = 64 * 1024}},
      [&endpoints](const http::server::HttpRequest& r) { return endpoints.serve(r); });
  if (!server) {
    log.error("cannot serve the metrics address", {{"error", server.error().toString()}});
  }
  return server;
}

void runUntilShutdown(const OperatorProcessFlags& f,
                      const controller::LeaderElectionOptions& election, api::ClusterApi& leaseApi,
                      Clock& clock, Logger& log, metrics::Registry& registry,
                      OperatorHealth& health, const OperatorLoopOptions& options,
                      const LoopCallbacks& callbacks, const Wait& wait,
                      http::server::HttpServer& server) {
  if (f.leaderElect) {
    controller::LeaderElector elector(leaseApi, clock, election);
    ElectionDriver driver(elector, clock, log, registry);
    OperatorLoop loop(
        clock, [&driver] { return driver.leader(); }, callbacks.pass, callbacks.ready, log, health,
        options);
    if (callbacks.poll) loop.setPoll(callbacks.poll);
    runThreaded(loop, driver, clock, wait, log);
  } else {
    OperatorLoop loop(
        clock, [] { return true; }, callbacks.pass, callbacks.ready, log, health, options);
    if (callbacks.poll) loop.setPoll(callbacks.poll);
    runInline(loop, nullptr, wait, log);
  }
  server.stop();
  log.info("stopped");
}

}  // namespace attune::cli
