// Day one, as the README tells a newcomer: the test runs the README's install steps (the block
// between `<!-- install-steps:begin -->` and `<!-- install-steps:end -->`) line by line, with
// this run's free ports and temporary directory in place of the README's fixed ones:
// `attune sim serve` on the try-out scenario, `kubectl apply -k deploy/`, a real Prometheus
// scraping the cluster, the operator with the arguments its Deployment passes, and the policies.
//
// A second Prometheus, the monitoring one, scrapes the operator (job attune-controller-metrics,
// as the ServiceMonitor names it) with the shipped alert rules loaded. The run then makes each
// alert's condition happen for real: a previous replica's Lease keeps the operator a standby for
// its first seconds (no leader), the leaky workload's OOM kill at its lowered limit is reverted
// (revert rate), a policy engine registered for pods/resize that is down refuses the resizes of
// a new pod (resize failures), the webhook is sent a request it cannot decode, a pod is created
// while the webhook's Service is unreachable (bypassed pods), reviews arrive over a slow link
// (webhook latency), the path to the metrics backend slows down (reconcile latency: the
// operator's --prometheus-url points at a delaying proxy in front of the README's Prometheus),
// the metrics backend is stopped, and last the operator. Every query of the shipped dashboard
// and every alert expression, threshold included, is evaluated over the run against the
// monitoring Prometheus and must return series.
//
// Takes about ten minutes of wall time: it waits on real processes, polling with deadlines.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/time.h"
#include "http/http_client.h"
#include "http/http_server.h"
#include "integration/e2e/sim_cluster.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::at;

// The README's install steps: the command lines of the marked block, without comments.
std::vector<std::string> readmeSteps() {
  const std::string readme = testing::readFile(testing::sourceDir() / "README.md");
  const auto begin = readme.find("<!-- install-steps:begin -->");
  const auto end = readme.find("<!-- install-steps:end -->");
  std::vector<std::string> steps;
  if (begin == std::string::npos || end == std::string::npos || end < begin) return steps;
  std::istringstream block(readme.substr(begin, end - begin));
  std::string line;
  while (std::getline(block, line)) {
    if (line.empty() || line.starts_with("#") || line.starts_with("```") ||
        line.starts_with("<!--")) {
      continue;
    }
    steps.push_back(line);
  }
  return steps;
}

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// A slow network path to the metrics backend: forwards every request to `backend`, after
// `delay` while one is set.
class DelayingProxy {
 public:
  explicit DelayingProxy(std::string backend) : backend_(std::move(backend)) {
    auto server = http::server::HttpServer::start(
        {.host = "127.0.0.1", .port = 0, .requestTimeout = std::chrono::seconds(60)},
        [this](const http::server::HttpRequest& r) { return forward(r); });
    if (server) server_ = std::move(*server);
  }
  bool ok() const { return server_ != nullptr; }
  int port() const { return server_->port(); }
  void setDelay(Duration delay) { delay_.store(delay.count()); }
  int requests() const { return requests_.load(); }

 private:
  http::server::HttpResponse forward(const http::server::HttpRequest& request) {
    ++requests_;
    if (const Duration delay(delay_.load()); delay > Duration::zero()) clock_.sleepFor(delay);
    http::CurlHttpClient client{{}};  // one transport per thread
    auto response =
        client.send({.method = request.method == "POST" ? http::HttpRequest::Method::kPost
                                                        : http::HttpRequest::Method::kGet,
                     .url = backend_ + request.target,
                     .body = request.body,
                     .contentType = std::string(request.header("content-type"))});
    http::server::HttpResponse answer;
    if (!response) {
      answer.status = 502;
      answer.body = response.error().toString();
      return answer;
    }
    answer.status = static_cast<int>(response->status);
    answer.body = std::move(response->body);
    answer.contentType = std::string(response->header("Content-Type").value_or(""));
    return answer;
  }

  std::string backend_;
  SystemClock clock_;
  std::atomic<Duration::rep> delay_{0};
  std::atomic<int> requests_{0};
  std::unique_ptr<http::server::HttpServer> server_;
};

class InstallEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
    for (const char* name : {"sim", "prometheus", "metrics", "webhook", "monitoring"}) {
      ports_[name] = testing::freeLocalPort();
    }
    proxy_ = std::make_unique<DelayingProxy>("http://127.0.0.1:" + port("prometheus"));
    ASSERT_TRUE(proxy_->ok());
  }

  std::string dir() const { return dir_.path().string(); }
  std::string port(const std::string& name) const { return std::to_string(ports_.at(name)); }

  // The README's fixed ports, directory and binary, replaced by this run's.
  std::string localise(std::string text) const {
    // The operator reaches the README's Prometheus through the delaying proxy.
    text = replaceAll(text, "--prometheus-url=http://127.0.0.1:9090",
                      "--prometheus-url=http://127.0.0.1:" + std::to_string(proxy_->port()));
    text = replaceAll(text, "127.0.0.1:8443", "127.0.0.1:" + port("sim"));
    text = replaceAll(text, "127.0.0.1:9090", "127.0.0.1:" + port("prometheus"));
    text = replaceAll(text, "127.0.0.1:8080", "127.0.0.1:" + port("metrics"));
    text = replaceAll(text, "127.0.0.1:9443", "127.0.0.1:" + port("webhook"));
    text = replaceAll(text, "/tmp/attune-try", dir());
    text = replaceAll(text, "$PWD/build/release/attune", ATTUNE_BINARY);
    text = replaceAll(text, "./build/release/attune", ATTUNE_BINARY);
    // The shipped Prometheus configuration, localised the same way.
    if (text.find("examples/try/prometheus.yml") != std::string::npos) {
      const std::string config =
          testing::readFile(testing::sourceDir() / "examples/try/prometheus.yml");
      std::ofstream(dir_.path() / "prometheus.yml") << localise(config);
      text = replaceAll(text, "examples/try/prometheus.yml", dir() + "/prometheus.yml");
    }
    return text;
  }

  // A script running `line` from the repository root with the exports of earlier steps.
  std::string script(const std::string& line, bool exec) const {
    std::string text = "set -e\ncd " + testing::sourceDir().string() + "\n";
    for (const std::string& e : exports_) text += e + "\n";
    if (!exec) return text + line + "\n";
    // Leading VAR=value words stay before `exec`, which takes the process over.
    std::smatch m;
    const std::regex assignments(R"(^((?:[A-Z_]+=\S+\s+)*)(.*)$)");
    std::regex_match(line, m, assignments);
    return text + m[1].str() + "exec " + m[2].str() + "\n";
  }

  // Runs one README line: exports are kept for the later lines, `… &` lines are started as
  // processes that run to the end of the test, the rest must succeed within two minutes.
  void runStep(std::string line) {
    line = localise(line);
    if (line.starts_with("export ")) {
      exports_.push_back(line);
      return;
    }
    const std::string name = "step-" + std::to_string(++steps_);
    if (line.ends_with(" &")) {
      line.resize(line.size() - 2);
      std::ofstream(dir_.path() / (name + ".sh")) << script(line, /*exec=*/true);
      background_.push_back(std::make_unique<testing::ChildProcess>(
          std::vector<std::string>{"bash", dir() + "/" + name + ".sh"},
          dir_.path() / (name + ".log")));
      names_.push_back(line);
      return;
    }
    std::ofstream(dir_.path() / (name + ".sh")) << script(line, /*exec=*/false);
    const auto run = testing::runCommand("timeout 120 bash " + dir() + "/" + name + ".sh");
    ASSERT_EQ(run.exitCode, 0) << line << "\n" << run.out << run.err << logs();
  }

  std::string logs() const {
    std::string all;
    for (const char* name : {"sim.log", "prometheus.log", "controller.log"}) {
      const std::string text = testing::readFile(dir_.path() / name);
      all += "--- " + std::string(name) + "\n" +
             text.substr(text.size() > 6000 ? text.size() - 6000 : 0);
    }
    return all;
  }

  testing::CommandRun kubectl(const std::string& args) {
    return testing::runCommand("kubectl --kubeconfig " + dir() +
                               "/kubeconfig --request-timeout=20s " + args);
  }
  json getJson(const std::string& args) {
    const auto run = kubectl("get " + args + " -o json");
    return run.exitCode == 0 ? json::parse(run.out, nullptr, false) : json();
  }
  bool waitFor(Duration limit, const std::function<bool()>& done) {
    const Time end = clock_.now() + limit;
    while (clock_.now() < end) {
      if (done()) return true;
      clock_.sleepFor(1s);
    }
    return done();
  }

  // The monitoring Prometheus: scrapes the operator every second, with the shipped alert rules.
  void startMonitoring() {
    const auto rules = testing::runCommand(
        "awk 'found { sub(/^  /, \"\"); print } /^spec:/ { found = 1 }' " +
        (testing::sourceDir() / "deploy/components/monitoring/prometheusrule.yaml").string() +
        " > " + dir() + "/alerts.rules.yaml");
    ASSERT_EQ(rules.exitCode, 0) << rules.err;
    std::ofstream(dir_.path() / "monitoring.yml")
        << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
           "rule_files: ['" +
               dir() +
               "/alerts.rules.yaml']\n"
               "scrape_configs:\n"
               "  - job_name: attune-controller-metrics\n"
               "    static_configs: [{targets: ['127.0.0.1:" +
               port("metrics") + "']}]\n";
    monitoring_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{"prometheus", "--config.file=" + dir() + "/monitoring.yml",
                                 "--storage.tsdb.path=" + dir() + "/monitoring-tsdb",
                                 "--web.listen-address=127.0.0.1:" + port("monitoring")},
        dir_.path() / "monitoring.log");
    ASSERT_TRUE(waitFor(60s, [&] {
      auto ready = client_.send({.url = monitoringUrl() + "/-/ready"});
      return ready && ready->status == 200;
    })) << testing::readFile(dir_.path() / "monitoring.log");
  }
  std::string monitoringUrl() const { return "http://127.0.0.1:" + port("monitoring"); }

  // The series `expr` returned at any step from `from` to now (a range query, 1 s steps).
  json seriesOver(const std::string& expr, Time from) {
    const auto seconds = [](Time t) {
      return std::to_string(
          std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
    };
    auto response = client_.send(
        {.url = monitoringUrl() + "/api/v1/query_range?query=" + http::percentEncode(expr) +
                "&start=" + seconds(from) + "&end=" + seconds(clock_.now()) + "&step=1"});
    if (!response || response->status != 200) {
      ADD_FAILURE() << expr << ": " << (response ? response->body : response.error().toString());
      return json::array();
    }
    return at(json::parse(response->body, nullptr, false), {"data", "result"});
  }

  // The expression of the shipped alert `name`.
  std::string alertExpr(const std::string& name) const {
    const YAML::Node rules = YAML::LoadFile(dir() + "/alerts.rules.yaml");
    for (const auto& group : rules["groups"]) {
      for (const auto& rule : group["rules"]) {
        if (rule["alert"] && rule["alert"].as<std::string>() == name) {
          return rule["expr"].as<std::string>();
        }
      }
    }
    ADD_FAILURE() << "no alert " << name;
    return "vector(1) == 0";
  }

  // One pod review to the webhook whose body arrives 1.5 s after its head (openssl s_client,
  // as a client over a slow link would send it).
  void slowReview(int i) {
    const std::string body =
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"slow-)" +
        std::to_string(i) +
        R"(","kind":{"group":"","version":"v1","kind":"Pod"},)"
        R"("resource":{"group":"","version":"v1","resource":"pods"},"namespace":"default",)"
        R"("operation":"CREATE","object":{"apiVersion":"v1","kind":"Pod","metadata":)"
        R"({"name":"slow","namespace":"default"},"spec":{"containers":[{"name":"app"}]}}}})";
    std::ofstream(dir_.path() / "review-head")
        << "POST /mutate-pods HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           "Connection: close\r\nContent-Length: "
        << body.size() << "\r\n\r\n"
        << body.substr(0, 40);
    std::ofstream(dir_.path() / "review-rest") << body.substr(40);
    const auto run = testing::runCommand(
        "(cat " + dir() + "/review-head; sleep 1.5; cat " + dir() +
        "/review-rest) | timeout 30 openssl s_client -quiet -connect 127.0.0.1:" + port("webhook") +
        " 2>/dev/null");
    EXPECT_NE(run.out.find("HTTP/1.1 200"), std::string::npos) << run.out << run.err;
  }

  // The instant value of `expr` in the monitoring Prometheus holds (returns series).
  bool holdsNow(const std::string& expr) {
    auto response =
        client_.send({.url = monitoringUrl() + "/api/v1/query?query=" + http::percentEncode(expr)});
    if (!response || response->status != 200) return false;
    const json result = at(json::parse(response->body, nullptr, false), {"data", "result"});
    return result.is_array() && !result.empty();
  }

  SystemClock clock_;
  testing::TempDir dir_;
  std::map<std::string, int> ports_;
  std::vector<std::string> exports_;
  std::vector<std::unique_ptr<testing::ChildProcess>> background_;
  std::vector<std::string> names_;  // the command line of each background process
  std::unique_ptr<testing::ChildProcess> monitoring_;
  std::unique_ptr<DelayingProxy> proxy_;
  http::CurlHttpClient client_{{.insecureSkipVerify = true}};
  int steps_ = 0;
};

// The background process whose command line contains `what`.
testing::ChildProcess* findProcess(std::vector<std::unique_ptr<testing::ChildProcess>>& all,
                                   const std::vector<std::string>& names, const std::string& what) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].find(what) != std::string::npos) return all[i].get();
  }
  return nullptr;
}

TEST_F(InstallEndToEnd, TheReadmeStepsInstallAndEveryDashboardQueryAndAlertReturnsData) {
  const std::vector<std::string> steps = readmeSteps();
  ASSERT_GE(steps.size(), 8u) << "README.md has no install-steps block";
  const Time start = clock_.now();
  for (const std::string& step : steps) {
    if (step.find(" controller ") != std::string::npos) {
      // A previous replica still holds the Lease (as after an upgrade): the operator starts as
      // a standby and takes over when the lease runs out. Then the monitoring Prometheus.
      std::ofstream(dir_.path() / "lease.yaml")
          << "apiVersion: coordination.k8s.io/v1\nkind: Lease\n"
             "metadata: {name: attune-leader, namespace: attune-system}\n"
             "spec: {holderIdentity: attune-controller-previous, leaseDurationSeconds: 15, "
             "acquireTime: \"" +
                 formatRfc3339(clock_.now(), 6) + "\", renewTime: \"" +
                 formatRfc3339(clock_.now(), 6) + "\"}\n";
      const auto lease = kubectl("apply -f " + dir() + "/lease.yaml");
      ASSERT_EQ(lease.exitCode, 0) << lease.err;
      ASSERT_NO_FATAL_FAILURE(startMonitoring());
    }
    ASSERT_NO_FATAL_FAILURE(runStep(step)) << step;
  }
  for (std::size_t i = 0; i < background_.size(); ++i) {
    ASSERT_TRUE(background_[i]->running()) << names_[i] << "\n" << logs();
  }

  // The bundle landed: CRD, namespace, Deployment and the webhook configurations.
  EXPECT_EQ(kubectl("get deployment -n attune-system attune-controller").exitCode, 0);
  EXPECT_EQ(kubectl("get crd attunepolicies.attune.io").exitCode, 0);

  // The operator reconciles the policies: web's pods are resized in place, leaky's too, and
  // leaky's OOM kill at its lowered limit is reverted.
  EXPECT_TRUE(waitFor(4min,
                      [&] {
                        const json policy = getJson("attunepolicy -n apps web");
                        return at(policy, {"status", "workloads", "resized"}) == 1;
                      }))
      << getJson("attunepolicy -n apps web").dump(2) << logs();
  EXPECT_TRUE(waitFor(
      6min,
      [&] {
        const json entries = at(getJson("attunepolicy -n apps leaky"), {"status", "resizeHistory"});
        if (!entries.is_array()) return false;
        for (const json& e : entries) {
          if (e.value("result", "") == "Reverted" && e.value("reason", "") == "oomkill")
            return true;
        }
        return false;
      }))
      << getJson("attunepolicy -n apps leaky").dump(2) << logs();
  if (HasFailure()) return;

  const auto table = kubectl("get attunepolicies -A");
  EXPECT_EQ(table.out.find("<none>"), std::string::npos) << table.out;
  // The plugin, as the README runs it (the symlink its first step made, on PATH).
  // kubectl takes no flag before a plugin's name: the kubeconfig comes from $KUBECONFIG.
  const std::string plugin =
      "KUBECONFIG=" + dir() + "/kubeconfig PATH=" + dir() + "/bin:$PATH kubectl attune ";
  const auto status = testing::runCommand(plugin + "status -A");
  ASSERT_EQ(status.exitCode, 0) << status.err;
  EXPECT_TRUE(std::regex_search(status.out, std::regex(R"(apps +web +Auto +Deployment/web +True)")))
      << status.out;
  EXPECT_TRUE(std::regex_search(status.out, std::regex(R"(apps +leaky +Auto +Deployment/leaky)")))
      << status.out;
  const auto explain = testing::runCommand(plugin + "explain leaky -n apps");
  ASSERT_EQ(explain.exitCode, 0) << explain.err;
  EXPECT_TRUE(std::regex_search(explain.out, std::regex(R"(leaky +leaky-\S+ +Reverted)")))
      << explain.out;
  EXPECT_NE(explain.out.find("oomkill"), std::string::npos) << explain.out;

  // A policy engine registered for pods/resize in apps is down (failurePolicy Fail): the API
  // server refuses every resize there, such as those of the pod created below.
  std::ofstream(dir_.path() / "resize-gate.yaml")
      << "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n"
         "metadata: {name: resize-gate}\nwebhooks:\n  - name: resize-gate.example.com\n"
         "    clientConfig: {url: \"https://127.0.0.1:" +
             std::to_string(testing::freeLocalPort()) +
             "/validate\"}\n"
             "    rules: [{operations: [UPDATE], apiGroups: [\"\"], apiVersions: [v1], "
             "resources: [pods/resize]}]\n"
             "    namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: apps}}\n"
             "    failurePolicy: Fail\n    sideEffects: None\n"
             "    admissionReviewVersions: [v1]\n    timeoutSeconds: 2\n";
  const auto gate = kubectl("apply -f " + dir() + "/resize-gate.yaml");
  ASSERT_EQ(gate.exitCode, 0) << gate.err;

  // A request the webhook cannot decode.
  for (int i = 0; i < 3; ++i) {
    auto bad = client_.send({.method = http::HttpRequest::Method::kPost,
                             .url = "https://127.0.0.1:" + port("webhook") + "/mutate-pods",
                             .body = "{\"kind\": \"NotAReview\"}",
                             .contentType = "application/json"});
    ASSERT_TRUE(bad.has_value()) << bad.error().toString();
  }
  // A pod of a managed workload created while the webhook's Service is unreachable (the
  // simulator calls it at 127.0.0.1:443): admitted unsized by failurePolicy Ignore.
  const json webPods = getJson("pods -n apps -l app.kubernetes.io/name=web");
  ASSERT_FALSE(at(webPods, {"items", 0, "metadata", "name"}).is_null());
  EXPECT_EQ(kubectl("delete pod -n apps " +
                    at(webPods, {"items", 0, "metadata", "name"}).get<std::string>())
                .exitCode,
            0);
  EXPECT_TRUE(waitFor(2min, [&] {
    return holdsNow("sum(attune_admission_webhook_bypassed_pods_total) > 0") &&
           holdsNow("sum(attune_webhook_requests_total{outcome=~\"bad_request|undecodable\"}) > 0");
  })) << logs();
  EXPECT_TRUE(waitFor(3min, [&] { return holdsNow(alertExpr("AttuneResizeFailures")); })) << logs();
  EXPECT_EQ(kubectl("delete validatingwebhookconfiguration resize-gate").exitCode, 0);

  // Reviews over a slow link: each body arrives 1.5 s after its head.
  for (int i = 0; i < 3; ++i) ASSERT_NO_FATAL_FAILURE(slowReview(i));
  EXPECT_TRUE(waitFor(1min, [&] { return holdsNow(alertExpr("AttuneWebhookSlow")); })) << logs();

  // The path to the metrics backend slows down: every query takes 20 s longer, until passes
  // over 30 s make the p99.
  proxy_->setDelay(20s);
  EXPECT_TRUE(waitFor(8min, [&] { return holdsNow(alertExpr("AttuneReconcileSlow")); }))
      << "queries through the proxy: " << proxy_->requests() << "\n"
      << logs();
  proxy_->setDelay(0s);

  // The metrics backend goes away; then the operator itself.
  testing::ChildProcess* backend = findProcess(background_, names_, "prometheus ");
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->terminate(30s, nullptr));
  EXPECT_TRUE(waitFor(2min, [&] { return holdsNow("max(attune_metrics_backend_up) == 0"); }))
      << logs();
  testing::ChildProcess* controller = findProcess(background_, names_, " controller ");
  ASSERT_NE(controller, nullptr);
  EXPECT_TRUE(controller->terminate(30s, nullptr));
  EXPECT_TRUE(
      waitFor(1min, [&] { return holdsNow("up{job=\"attune-controller-metrics\"} == 0"); }));

  // Every dashboard query returns series over the run.
  std::ifstream in(testing::sourceDir() / "deploy/components/monitoring/dashboards/attune.json");
  const json dashboard = json::parse(in, nullptr, false);
  ASSERT_TRUE(dashboard.is_object());
  int queries = 0;
  for (const json& panel : dashboard.at("panels")) {
    if (panel.value("type", "") == "row") continue;
    for (const json& target : panel.at("targets")) {
      std::string expr = target.at("expr");
      expr = std::regex_replace(expr, std::regex(R"(\$__rate_interval)"), "1m");
      expr = std::regex_replace(expr, std::regex(R"(\$namespace)"), ".*");
      ++queries;
      EXPECT_FALSE(seriesOver(expr, start).empty())
          << "dashboard panel \"" << panel.value("title", "") << "\": " << expr;
    }
  }
  EXPECT_GE(queries, 12);

  // Every alert expression, threshold included, returns series at some moment of the run.
  const YAML::Node rules = YAML::LoadFile(dir() + "/alerts.rules.yaml");
  int alerts = 0;
  for (const auto& group : rules["groups"]) {
    for (const auto& rule : group["rules"]) {
      if (!rule["alert"]) continue;
      ++alerts;
      const std::string name = rule["alert"].as<std::string>();
      const std::string expr = rule["expr"].as<std::string>();
      EXPECT_FALSE(seriesOver(expr, start).empty()) << "alert " << name << ": " << expr;
    }
  }
  EXPECT_GE(alerts, 9);
}

}  // namespace
}  // namespace attune
