// The real peers of an end-to-end test, shared by the operator's e2e suites: `attune sim serve
// --tls` running a scenario in wall-clock time (one simulated second per second), a real
// Prometheus scraping its /metrics every second over HTTPS (trusting the kubeconfig's CA), and
// the real kubectl, with a temporary directory for files and logs.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/error.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/prometheus/prometheus_server.h"

namespace attune::testing {

// The value at `path` (object keys, or array indexes as numbers), or null when any step is
// missing.
nlohmann::json at(const nlohmann::json& value, std::initializer_list<nlohmann::json> path);

// Why the peers cannot run here (kubectl or Prometheus missing), or "" when they can.
std::string simClusterUnavailable();

// The leader-election flags of SimCluster::controllerArgv: fast by default (a lease of 4 s).
struct LeaseTimings {
  std::string leaseDuration = "4s";
  std::string renewDeadline = "3s";
  std::string retryPeriod = "1s";
};

class SimCluster {
 public:
  // Starts `attune sim serve` on `scenarioYaml` (plus `extraArgs`) and Prometheus scraping it;
  // an error (with the simulator's log) when either does not come up.
  static Result<std::unique_ptr<SimCluster>> start(const std::string& scenarioYaml,
                                                   const std::vector<std::string>& extraArgs = {});

  std::string path(const std::string& name) const { return (dir_.path() / name).string(); }
  void write(const std::string& name, const std::string& text) const;
  std::string log(const std::string& name) const;
  const std::string& kubeconfig() const { return kubeconfig_; }
  std::string prometheusAddress() const { return prometheus_->address(); }
  // Another real Prometheus scraping the simulator as the first one does, serving its API as
  // `web` says (HTTPS, basic authentication); it runs until the returned object is destroyed.
  Result<std::unique_ptr<PrometheusServer>> startPrometheus(const WebServing& web) const;
  // The CA the simulator's serving certificate chains to, as a PEM file.
  std::string caFile() const { return path("ca.pem"); }

  // Runs kubectl; a failed run is tried again (up to `attempts` times, a second apart), as the
  // API server may be injecting faults.
  CommandRun kubectl(const std::string& args, int attempts = 5);
  // `kubectl get ARGS -o json`, or null when it fails.
  nlohmann::json getJson(const std::string& args);
  // Polls `done` every second until it holds or `limit` of wall time has passed.
  bool waitFor(Duration limit, const std::function<bool()>& done);
  // A child process logging to `logName` in the directory.
  std::unique_ptr<ChildProcess> spawn(const std::vector<std::string>& argv,
                                      const std::string& logName) const;

  // The command line of `attune controller` against this cluster as the e2e suites run it: the
  // kubeconfig, this Prometheus, /metrics on `metricsPort`, a pass every 5 s, 1 s scrapes with a
  // 30 s throttle window, leader election on a Lease in `apps` with `lease`'s timings, JSON
  // logs; then `extra`.
  std::vector<std::string> controllerArgv(int metricsPort,
                                          const std::vector<std::string>& extra = {},
                                          const LeaseTimings& lease = {}) const;

  SystemClock& clock() { return clock_; }

 private:
  SimCluster() = default;

  SystemClock clock_;
  TempDir dir_;
  std::string kubeconfig_;
  int simPort_ = 0;
  std::unique_ptr<ChildProcess> sim_;
  std::unique_ptr<PrometheusServer> prometheus_;
};

}  // namespace attune::testing
