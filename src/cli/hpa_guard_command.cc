// `attune hpa-guard`: the HPA guard alone (docs/hpa.md) — every interval, HPAs annotated
// estafette.io/hpa-scaler: "true" get the minReplicas their Prometheus query and scale-down
// ratio call for. Leader election, /metrics /healthz /readyz, shutdown and logs as for
// `attune controller`.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/hpa_guard_process.h"
#include "cli/malloc_arenas.h"
#include "cli/operator_process.h"
#include "kube/http_cluster_api.h"

namespace attune::cli {
namespace {

struct HpaGuardFlags {
  OperatorProcessFlags process{.metricsAddress = ":8081", .leaseName = "attune-hpa-guard"};
  std::string interval = "1m";
  std::vector<std::string> watchNamespaces;
};

int runHpaGuard(const HpaGuardFlags& f) {
  configureMalloc();
  SystemClock clock;
  Redactor redactor;
  auto log = makeLogger(f.process, clock, redactor);
  if (!log) return kExitUsage;
  auto election = electionOptions(f.process);
  auto interval = positiveDuration(f.interval, "--interval");
  auto address = parseListenAddress(f.process.metricsAddress, "--metrics-address");
  auto prometheus = prometheusOptions(f.process, *log, redactor);
  for (const Error* e :
       {!election ? &election.error() : nullptr, !interval ? &interval.error() : nullptr,
        !address ? &address.error() : nullptr, !prometheus ? &prometheus.error() : nullptr}) {
    if (e == nullptr) continue;
    log->error("invalid flags", {{"error", e->toString()}});
    return kExitUsage;
  }
  auto config = clusterConfig(f.process);
  if (!config) {
    log->error("cannot load the cluster configuration", {{"error", config.error().toString()}});
    return kExitFailed;
  }
  addSecrets(redactor, config->http);
  const Wait wait = shutdownSignals();  // before any thread starts

  kube::HttpClusterApi api(*config, clock);
  kube::HttpClusterApiOptions leaseOptions;
  leaseOptions.rest.maxRetries = 1;  // the next election step is the retry
  kube::HttpClusterApi leaseApi(*config, clock, leaseOptions);
  metrics::Registry registry;
  HpaGuardProcess guard(api, *prometheus, clock, registry, *log,
                        {.namespaces = f.watchNamespaces, .interval = *interval});

  OperatorHealth health;
  OperatorLoopOptions loopOptions;
  loopOptions.reconcileInterval = *interval;
  loopOptions.logPasses = false;  // HpaGuardProcess logs its own summary
  loopOptions.tick = std::min(election->retryPeriod, Duration(std::chrono::seconds(2)));
  OperatorEndpoints endpoints{registry, health, clock, loopOptions.stallTimeout};
  auto server = serveEndpoints(*address, endpoints, *log);
  if (!server) return kExitFailed;
  log->info("starting",
            {{"server", config->server},
             {"metrics_address", fmt::format("{}:{}", address->host, (*server)->port())},
             {"identity", election->identity},
             {"leader_elect", f.process.leaderElect ? "true" : "false"},
             {"interval", formatDuration(*interval)}});

  const std::string firstNamespace = f.watchNamespaces.empty() ? "" : f.watchNamespaces.front();
  auto readiness = [&]() -> Result<void> {
    auto listed = api.listHpas({firstNamespace, {}});
    if (!listed) return std::unexpected(listed.error());
    return {};
  };
  auto pass = [&]() -> Result<PassSummary> {
    auto summary = guard.runPass();
    if (!summary) return std::unexpected(summary.error());
    return PassSummary{};
  };
  runUntilShutdown(f.process, *election, leaseApi, clock, *log, registry, health, loopOptions,
                   {pass, nullptr, readiness}, wait, **server);
  return kExitOk;
}

}  // namespace

void addHpaGuardCommand(CLI::App& app, int& exitCode) {
  auto f = std::make_shared<HpaGuardFlags>();
  auto* cmd = app.add_subcommand(
      "hpa-guard",
      "Run the HPA guard against a cluster: keep minReplicas of HPAs annotated "
      "estafette.io/hpa-scaler at the floor their Prometheus query and scale-down ratio call for "
      "(docs/hpa.md).");
  addOperatorProcessFlags(*cmd, f->process);
  cmd->add_option("--interval", f->interval, "Time between passes while leader")
      ->capture_default_str();
  cmd->add_option(
         "--watch-namespace", f->watchNamespaces,
         "Guard the HPAs of this namespace only (repeatable or comma-separated; default: all)")
      ->take_all()
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->callback([f, &exitCode] { exitCode = runHpaGuard(*f); });
}

}  // namespace attune::cli
