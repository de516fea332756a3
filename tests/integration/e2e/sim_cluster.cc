#include "integration/e2e/sim_cluster.h"

#include <fstream>

#include "support/shared_dir.h"

namespace attune::testing {

using namespace std::chrono_literals;
using nlohmann::json;

json at(const json& value, std::initializer_list<json> path) {
  const json* v = &value;
  for (const json& step : path) {
    if (step.is_string() && v->is_object() && v->contains(step.get<std::string>())) {
      v = &(*v)[step.get<std::string>()];
    } else if (step.is_number() && v->is_array() && step.get<std::size_t>() < v->size()) {
      v = &(*v)[step.get<std::size_t>()];
    } else {
      return json();
    }
  }
  return *v;
}

std::string simClusterUnavailable() {
  if (!findOnPath("kubectl")) return "kubectl is not installed (scripts/setup.sh installs it)";
  if (!PrometheusServer::available()) return std::string(kPrometheusMissing);
  return "";
}

Result<std::unique_ptr<SimCluster>> SimCluster::start(const std::string& scenarioYaml,
                                                      const std::vector<std::string>& extraArgs) {
  std::unique_ptr<SimCluster> c(new SimCluster());
  c->kubeconfig_ = c->path("kubeconfig");
  c->write("scenario.yaml", scenarioYaml);
  const int port = freeLocalPort();
  c->simPort_ = port;
  std::vector<std::string> argv{ATTUNE_BINARY,
                                "sim",
                                "serve",
                                c->path("scenario.yaml"),
                                "--listen",
                                "127.0.0.1:" + std::to_string(port),
                                "--tls",
                                "--kubeconfig-out",
                                c->kubeconfig_,
                                "--speed",
                                "1"};
  argv.insert(argv.end(), extraArgs.begin(), extraArgs.end());
  c->sim_ = c->spawn(argv, "sim.log");
  if (!c->waitFor(60s, [&] {
        return std::filesystem::exists(c->kubeconfig_) &&
               c->kubectl("get --raw /readyz", 1).out == "ok";
      })) {
    return fail(ErrorCode::kUnavailable,
                "attune sim serve did not become ready:\n" + c->log("sim.log"));
  }
  // Prometheus scrapes the simulator over HTTPS, trusting the CA of the kubeconfig.
  const auto ca =
      c->kubectl("config view --raw -o jsonpath={.clusters[0].cluster.certificate-authority-data}");
  if (ca.exitCode != 0) return fail(ErrorCode::kInternal, "no CA in the kubeconfig: " + ca.err);
  c->write("ca.b64", ca.out);
  if (runCommand("base64 -d " + c->path("ca.b64") + " > " + c->caFile()).exitCode != 0) {
    return fail(ErrorCode::kInternal, "cannot decode the kubeconfig's CA");
  }
  auto prometheus = c->startPrometheus({});
  if (!prometheus) return std::unexpected(prometheus.error());
  c->prometheus_ = std::move(*prometheus);
  return c;
}

Result<std::unique_ptr<PrometheusServer>> SimCluster::startPrometheus(const WebServing& web) const {
  return PrometheusServer::startScraping("127.0.0.1:" + std::to_string(simPort_), 1s,
                                         dir_.path() / "ca.pem", web);
}

void SimCluster::write(const std::string& name, const std::string& text) const {
  std::ofstream(dir_.path() / name) << text;
}

std::string SimCluster::log(const std::string& name) const { return readFile(dir_.path() / name); }

CommandRun SimCluster::kubectl(const std::string& args, int attempts) {
  CommandRun run;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    run = runCommand("kubectl --kubeconfig " + kubeconfig_ + " --request-timeout=20s " + args);
    if (run.exitCode == 0) break;
    if (attempt + 1 < attempts) clock_.sleepFor(1s);
  }
  return run;
}

json SimCluster::getJson(const std::string& args) {
  const auto run = kubectl("get " + args + " -o json");
  if (run.exitCode != 0) return json();
  return json::parse(run.out, nullptr, false);
}

bool SimCluster::waitFor(Duration limit, const std::function<bool()>& done) {
  const Time end = clock_.now() + limit;
  while (clock_.now() < end) {
    if (done()) return true;
    clock_.sleepFor(1s);
  }
  return done();
}

std::vector<std::string> SimCluster::controllerArgv(int metricsPort,
                                                    const std::vector<std::string>& extra,
                                                    const LeaseTimings& lease) const {
  std::vector<std::string> argv{ATTUNE_BINARY,
                                "controller",
                                "--kubeconfig",
                                kubeconfig_,
                                "--prometheus-url",
                                prometheusAddress(),
                                "--metrics-address",
                                "127.0.0.1:" + std::to_string(metricsPort),
                                "--reconcile-interval",
                                "5s",
                                "--scrape-interval",
                                "1s",
                                "--throttle-window",
                                "30s",
                                "--leader-election-namespace",
                                "apps",
                                "--lease-duration",
                                lease.leaseDuration,
                                "--renew-deadline",
                                lease.renewDeadline,
                                "--retry-period",
                                lease.retryPeriod,
                                "--log-format",
                                "json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

std::unique_ptr<ChildProcess> SimCluster::spawn(const std::vector<std::string>& argv,
                                                const std::string& logName) const {
  return std::make_unique<ChildProcess>(argv, dir_.path() / logName);
}

}  // namespace attune::testing
