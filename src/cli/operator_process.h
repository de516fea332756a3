// What the long-running subcommands (`attune controller`, `attune hpa-guard`) share: the flags
// for the cluster connection, Prometheus, the /metrics /healthz /readyz address, leader
// election and logs; turning them into configuration; and running an OperatorLoop until
// SIGTERM or SIGINT, leader-elected on a Lease or not (docs/operator.md).
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <string_view>

#include "api/cluster_api.h"
#include "cli/logging.h"
#include "cli/operator_endpoints.h"
#include "cli/operator_loop.h"
#include "controller/leader_election.h"
#include "core/clock.h"
#include "core/error.h"
#include "http/http_server.h"
#include "kube/kubeconfig.h"
#include "metrics/exposition/registry.h"
#include "metrics/prometheus/prometheus_source.h"

namespace attune::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

struct OperatorProcessFlags {
  std::string kubeconfig;
  std::string context;
  std::string prometheusUrl;
  std::string prometheusTokenFile;
  std::string prometheusCaFile;
  std::string metricsAddress = ":8080";
  bool leaderElect = true;
  std::string leaseNamespace;
  std::string leaseName;  // the subcommand's default, e.g. attune-leader
  std::string leaseDuration = "15s";
  std::string renewDeadline = "10s";
  std::string retryPeriod = "2s";
  std::string identity;
  std::string logFormat = "text";
  std::string logLevel = "info";
};

// The logger of --log-format and --log-level writing to standard error, or nullptr after
// printing why the flags are wrong. `clock` and `redactor` must outlive it.
std::unique_ptr<Logger> makeLogger(const OperatorProcessFlags& f, Clock& clock,
                                   const Redactor& redactor);

// Adds the flags above to `cmd`; `f` must outlive the parse.
void addOperatorProcessFlags(CLI::App& cmd, OperatorProcessFlags& f);

// A duration flag that must be positive; the error's field is `flag`.
Result<Duration> positiveDuration(const std::string& text, const std::string& flag);

// The leader-election options of the flags, validated (errors name the flag).
Result<controller::LeaderElectionOptions> electionOptions(const OperatorProcessFlags& f);

// The cluster to talk to: --kubeconfig (with --context), else $KUBECONFIG, else in-cluster
// when KUBERNETES_SERVICE_HOST is set, else ~/.kube/config.
Result<kube::ClusterConfig> clusterConfig(const OperatorProcessFlags& f);

// Registers the credentials of `http` (tokens, keys, passwords, and the contents of the files
// naming them) with the redactor.
void addSecrets(Redactor& redactor, const http::HttpClientOptions& http);

// Prometheus client options from --prometheus-url, --prometheus-bearer-token-file and
// --prometheus-ca-file, with
// warnings logged through `log` and the token registered with `redactor` (both must outlive the
// options). kInvalidArgument (field --prometheus-url) when the URL is missing.
Result<metrics::PrometheusOptions> prometheusOptions(const OperatorProcessFlags& f, Logger& log,
                                                     Redactor& redactor);

// Blocks SIGINT and SIGTERM on the calling thread (call it before any thread starts) and
// returns the Wait that takes them.
Wait shutdownSignals();

// Serves /metrics /healthz /readyz on the flags' address for `endpoints` (which must outlive
// the server); the error is logged.
Result<std::unique_ptr<http::server::HttpServer>> serveEndpoints(const ListenAddress& address,
                                                                 OperatorEndpoints& endpoints,
                                                                 Logger& log);

// The callbacks of one OperatorLoop (see operator_loop.h); poll may be empty.
struct LoopCallbacks {
  OperatorLoop::Pass pass;
  OperatorLoop::Poll poll;
  OperatorLoop::ReadinessCheck ready;
};

// Runs an OperatorLoop of `callbacks` until `wait` says shutdown: with f.leaderElect on a Lease
// through `leaseApi` (runThreaded, the lease released at the end), else always leading
// (runInline); then stops the endpoints' `server` and logs "stopped". Every reference must
// outlive the call.
void runUntilShutdown(const OperatorProcessFlags& f,
                      const controller::LeaderElectionOptions& election, api::ClusterApi& leaseApi,
                      Clock& clock, Logger& log, metrics::Registry& registry,
                      OperatorHealth& health, const OperatorLoopOptions& options,
                      const LoopCallbacks& callbacks, const Wait& wait,
                      http::server::HttpServer& server);

}  // namespace attune::cli
