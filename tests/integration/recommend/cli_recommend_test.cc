// `attune recommend` as a user runs it: the real binary against a real Prometheus backfilled
// with the synthetic cluster (tests/support/prometheus/), and against trace files. Expected
// numbers are computed here from the generated series, independently of the stats module.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/clock.h"
#include "core/time.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/prometheus/local_http_server.h"
#include "support/prometheus/prometheus_server.h"
#include "support/prometheus/synthetic_cluster.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using testing::PrometheusServer;
using testing::SyntheticCluster;

constexpr double kMi = 1024.0 * 1024.0;
// The statistics' sketches are within 0.99% (kSketchRelativeError); results round up.
constexpr double kTolerance = 0.015;

using testing::CommandRun;

CommandRun runAttune(const std::string& args) {
  return testing::runCommand(std::string(ATTUNE_BINARY) + " " + args);
}

const nlohmann::json* findContainer(const nlohmann::json& doc, const std::string& workload,
                                    const std::string& container) {
  for (const auto& w : doc["workloads"]) {
    if (w["name"] != workload) continue;
    for (const auto& c : w["containers"]) {
      if (c["name"] == container) return &c;
    }
  }
  return nullptr;
}

// The recommended amount (millicores or bytes) of `strategy` for field `field`.
double recommended(const nlohmann::json& container, const std::string& strategy,
                   const std::string& field) {
  for (const auto& r : container["recommendations"]) {
    if (r["strategy"] == strategy && r["enoughData"] == true) return r["recommended"][field];
  }
  ADD_FAILURE() << "no " << strategy << " recommendation in " << container.dump();
  return 0;
}

void expectNear(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, expected * kTolerance) << what;
}

class RecommendPrometheusTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!PrometheusServer::available()) return;
    // The statistics count whole UTC days: with --history 1d, the day holding --at. Analyse at
    // 23:55 of a day that ended at least two hours ago (backfilled data must lie in the past).
    const Time now = SystemClock().now();
    at_ = std::chrono::floor<std::chrono::days>(now - hours(2)) - minutes(5);
    cluster_ = std::make_unique<SyntheticCluster>(at_ - hours(26), at_);
    server_ = PrometheusServer::startForSuite(cluster_->openMetrics(), startError_);
  }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    if (!PrometheusServer::available()) {
      GTEST_SKIP() << testing::kPrometheusMissing;
    }
    ASSERT_TRUE(server_) << startError_;
  }

  static std::string base(Time at = at_) {
    return "recommend --prometheus " + server_->address() + " --at " + formatRfc3339(at) +
           " --history 1d";
  }

  // Working set of `pod`/`container` at `t` (the synthetic ramp).
  static double memoryAt(const std::string& pod, const std::string& container, Time t) {
    return *cluster_->memoryAt(cluster_->container(pod, container), t);
  }

  static inline Time at_;
  static inline std::unique_ptr<SyntheticCluster> cluster_;
  static inline std::unique_ptr<PrometheusServer> server_;
  static inline std::string startError_;
};

TEST_F(RecommendPrometheusTest, JsonNumbersMatchTheGeneratedSeries) {
  const CommandRun run = runAttune(base() + " --strategy attune,cruisekube,vpa,krr -o json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.err.find("querying cpu usage in all namespaces"), std::string::npos) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["strategies"].size(), 4u);

  // shop/Deployment/web app: pods at 0.25 and 0.5 cores; the PSI waiting rate is 10% of the
  // usage, so the adjusted CPU is c × (1 + 0.1 c): max(0.25625, 0.525) = 0.525 cores.
  const auto* web = findContainer(doc, "web", "app");
  ASSERT_NE(web, nullptr) << run.out;
  EXPECT_EQ((*web)["current"]["cpuRequestMillicores"], 100);
  EXPECT_EQ((*web)["current"]["memoryLimitBytes"], 256 * 1024 * 1024);
  EXPECT_EQ((*web)["dataPoints"], 289);  // every 5m over [at − 1d, at]
  const double webCpu = 0.525 * 1000;
  expectNear(recommended(*web, "krr", "cpuRequestMillicores"), webCpu, "krr cpu = p95");
  const double webMemMax = memoryAt("web-7d9c5-fghij", "app", at_);
  expectNear(recommended(*web, "krr", "memoryRequestBytes"), webMemMax * 1.15, "krr memory");
  // vpa reads its decaying histogram of the raw usage (no PSI adjustment, as VPA): p90 = 0.5
  // cores, reported as the end of its bucket (bucket n starts at 0.01 × (1.05^n − 1) / 0.05),
  // then + 15%.
  int bucket = 0;
  const auto bucketStart = [](int n) { return 0.01 * (std::pow(1.05, n) - 1) / 0.05; };
  while (bucketStart(bucket + 1) <= 0.5) ++bucket;
  expectNear(recommended(*web, "vpa", "cpuRequestMillicores"),
             bucketStart(bucket + 1) * 1000 * 1.15, "vpa p90 bucket end × 1.15");
  expectNear(recommended(*web, "cruisekube", "cpuRequestMillicores"), webCpu, "p75, no peak");
  // attune: 525m × 1.2 = 630m is +530% of 100m: capped at +50%; memory capped at +30%.
  EXPECT_EQ(recommended(*web, "attune", "cpuRequestMillicores"), 150);
  expectNear(recommended(*web, "attune", "memoryRequestBytes"), 128 * kMi * 1.3, "attune memory");

  // data/StatefulSet/db postgres: 1 core + 10% PSI; attune 1.1 × 1.2 = 1.32 (+32% < +50%).
  const auto* db = findContainer(doc, "db", "postgres");
  ASSERT_NE(db, nullptr);
  expectNear(recommended(*db, "attune", "cpuRequestMillicores"), 1320, "attune db cpu");
  expectNear(recommended(*db, "krr", "cpuRequestMillicores"), 1100, "krr db cpu");

  // Explanation steps are in the document.
  EXPECT_FALSE((*db)["recommendations"][0]["explanation"].empty());
  // The pod without an owner is its own workload.
  bool lonely = false;
  for (const auto& w : doc["workloads"]) lonely |= w["kind"] == "Pod" && w["name"] == "lonely";
  EXPECT_TRUE(lonely);
  ASSERT_EQ(doc["totals"].size(), 4u);
}

TEST_F(RecommendPrometheusTest, TablePrintsEveryStrategyAndTotals) {
  const CommandRun run = runAttune(base() + " --strategy attune,cruisekube --strategy vpa,krr");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  for (const char* part :
       {"ATTUNE CPU", "CRUISEKUBE CPU", "VPA MEMORY", "KRR CPU", "shop/Deployment/web",
        "data/StatefulSet/db", "TOTALS (", "attune  ", "cruisekube  ", "vpa  ", "krr  "}) {
    EXPECT_NE(run.out.find(part), std::string::npos) << part << "\n" << run.out;
  }
}

TEST_F(RecommendPrometheusTest, TooLittleDataIsListedWithoutNumbers) {
  // One hour into the UTC day: 13 samples in the statistics' window.
  const Time early = std::chrono::floor<std::chrono::days>(at_) + hours(1);
  const CommandRun run = runAttune(base(early) + " -n shop --selector Deployment/web -o json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc["workloads"].size(), 1u) << run.out;
  const auto& rec = doc["workloads"][0]["containers"][0]["recommendations"][0];
  EXPECT_EQ(rec["enoughData"], false);
  EXPECT_EQ(rec["reason"], "13 of 48 data points");
  EXPECT_TRUE(rec["recommended"].is_null());
  const CommandRun table = runAttune(base(early) + " -n shop --selector 'web*'");
  EXPECT_NE(table.out.find("not enough data: 13 of 48 data points  -"), std::string::npos)
      << table.out;
}

TEST_F(RecommendPrometheusTest, EmptyNamespaceHasNoRows) {
  const CommandRun run = runAttune(base() + " --namespace nothing-here -o csv");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << run.out;  // header only
  const CommandRun table = runAttune(base() + " --namespace nothing-here");
  EXPECT_NE(table.out.find("No workloads found."), std::string::npos) << table.out;
}

TEST(RecommendCliTest, PrometheusDownExitsThreeWithTheReason) {
  const std::string url = "http://127.0.0.1:" + std::to_string(testing::freeLocalPort());
  const CommandRun run = runAttune("recommend --prometheus " + url + " --timeout 2s");
  EXPECT_EQ(run.exitCode, 3) << run.err;
  EXPECT_NE(run.err.find("attune recommend: prometheus at " + url + ": "), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("connection refused"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty());
}

// Prometheus' response warnings reach the user on stderr, with the query they belong to.
TEST(RecommendCliTest, PrometheusWarningsArePrintedWithTheirQuery) {
  testing::LocalHttpServer server([](const std::string&) {
    return testing::LocalHttpServer::Reply{
        .body = R"({"status":"success","data":{"resultType":"matrix","result":[]},)"
                R"("warnings":["query touched too many series"]})"};
  });
  const CommandRun run = runAttune("recommend --prometheus " + server.address() +
                                   " --at 2026-01-01T00:00:00Z -o json");
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.err.find("prometheus warning: query touched too many series (query: "),
            std::string::npos)
      << run.err;
}

TEST(RecommendCliTest, UsageErrorsExitTwo) {
  for (const std::string args :
       {"recommend --bogus", "recommend", "recommend --trace a --prometheus http://x",
        "recommend --trace a --strategy nope", "recommend --trace a --history 36h",
        "recommend --trace a --step soon", "recommend --trace a -o xml",
        "recommend --trace a --at yesterday"}) {
    const CommandRun run = runAttune(args);
    EXPECT_EQ(run.exitCode, 2) << args << "\n" << run.err;
    EXPECT_FALSE(run.err.empty()) << args;
  }
}

// One day of an Attune CSV trace: app at 0.3 cores and 200Mi every 5 minutes.
std::string dayTrace() {
  std::string csv =
      "timestamp,namespace,workload_kind,workload,pod,container,cpu_usage_cores,"
      "memory_working_set_bytes,cpu_request,cpu_limit,memory_request,memory_limit,"
      "psi_cpu_waiting_rate,cpu_throttle_ratio,restarts,oom_killed\n";
  const std::int64_t day = 1714521600;  // 2024-05-01T00:00:00Z
  for (int i = 0; i < 288; ++i) {
    csv += std::to_string(day + 300 * i) +
           ",shop,Deployment,api,api-0,app,0.3,209715200,500m,1,256Mi,512Mi,,,0,0\n";
  }
  return csv;
}

TEST(RecommendCliTest, TraceDefaultsToItsLastSample) {
  testing::TempDir dir;
  const auto file = dir.path() / "day.csv";
  std::ofstream(file) << dayTrace();
  const CommandRun run = runAttune("recommend --trace " + file.string() +
                                   " --history 1d -o json "
                                   "--strategy krr,attune");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["at"], "2024-05-01T23:55:00Z");
  const auto* app = findContainer(doc, "api", "app");
  ASSERT_NE(app, nullptr) << run.out;
  expectNear(recommended(*app, "krr", "cpuRequestMillicores"), 300, "krr cpu");
  expectNear(recommended(*app, "krr", "memoryRequestBytes"), 200 * kMi * 1.15, "krr memory");
  // attune: 0.3 × 1.2 = 360m is -28% of 500m; memory never decreases by default.
  expectNear(recommended(*app, "attune", "cpuRequestMillicores"), 360, "attune cpu");
  EXPECT_EQ(recommended(*app, "attune", "memoryRequestBytes"), 256 * kMi);
}

TEST(RecommendCliTest, TraceFilesOfBothFormats) {
  const std::string data = ATTUNE_TRACE_DATA;
  const CommandRun run = runAttune("recommend --trace " + data + "/bitbrains --trace " + data +
                                   "/attune/small.csv --history 1d -o csv --strategy vpa");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  for (const char* row : {"bitbrains,Deployment,vm-1,main,1,", "bitbrains,Deployment,vm-2,main,",
                          "shop,Deployment,web,app,1,", "batch,CronJob,nightly,main,"}) {
    EXPECT_NE(run.out.find(row), std::string::npos) << row << "\n" << run.out;
  }
  // Three or fewer samples each: no numbers anywhere.
  EXPECT_EQ(run.out.find(",true,"), std::string::npos) << run.out;
}

TEST(RecommendCliTest, PolicyDrivesTheStrategies) {
  testing::TempDir dir;
  const auto trace = dir.path() / "day.csv";
  std::ofstream(trace) << dayTrace();
  const auto policy = dir.path() / "policy.yaml";
  std::ofstream(policy)
      << "apiVersion: attune.io/v1alpha1\nkind: AttunePolicy\n"
         "metadata: {name: p}\nspec:\n  targetRef: {kind: Deployment, name: api}\n"
         "  cpu: {overhead: \"50\"}\n  metricsSource: {minimumDataPoints: 500}\n";
  const CommandRun run = runAttune("recommend --trace " + trace.string() +
                                   " --history 1d -o json " + "--policy " + policy.string());
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  const auto* app = findContainer(doc, "api", "app");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ((*app)["recommendations"][0]["reason"], "288 of 500 data points");
  const CommandRun bad =
      runAttune("recommend --trace " + trace.string() + " --policy /nonexistent");
  EXPECT_EQ(bad.exitCode, 2) << bad.err;
}

// Every strategy over the 100 production VMs of the shared Bitbrains trace: each container either
// gets finite, positive, bounded numbers or is listed as lacking data, never anything else.
TEST(RecommendCliTest, EveryStrategyIsFiniteAndBoundedOverTheBitbrainsTrace) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  const auto traces = shared / "traces/bitbrains-rnd-2013-7";
  const CommandRun run = runAttune("recommend --trace " + traces.string() +
                                   " --strategy adaptive,attune,cruisekube,vpa,krr -o json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc["workloads"].size(), 100u);
  constexpr double kMaxMillicores = 256'000;                // 256 cores
  constexpr double kMaxBytes = 512.0 * 1024 * 1024 * 1024;  // 512 GiB
  std::map<std::string, int> withNumbers;
  for (const auto& w : doc["workloads"]) {
    for (const auto& c : w["containers"]) {
      ASSERT_EQ(c["recommendations"].size(), 5u);
      for (const auto& r : c["recommendations"]) {
        const std::string strategy = r["strategy"];
        const auto& rec = r["recommended"];
        if (!r["enoughData"].get<bool>()) {
          EXPECT_FALSE(r["reason"].get<std::string>().empty()) << w["name"] << " " << strategy;
          EXPECT_TRUE(rec.is_null() || rec["cpuRequestMillicores"].is_null())
              << w["name"] << " " << strategy;
          continue;
        }
        ++withNumbers[strategy];
        for (const char* field : {"cpuRequestMillicores", "memoryRequestBytes"}) {
          ASSERT_TRUE(rec[field].is_number()) << w["name"] << " " << strategy << " " << field;
          const double v = rec[field];
          EXPECT_TRUE(std::isfinite(v) && v > 0) << w["name"] << " " << strategy << " " << field;
        }
        EXPECT_LE(rec["cpuRequestMillicores"].get<double>(), kMaxMillicores) << w["name"];
        EXPECT_LE(rec["memoryRequestBytes"].get<double>(), kMaxBytes) << w["name"];
        for (const char* limit : {"cpuLimitMillicores", "memoryLimitBytes"}) {
          if (rec[limit].is_null()) continue;
          EXPECT_GE(rec[limit].get<double>(),
                    rec[std::string(limit).starts_with("cpu") ? "cpuRequestMillicores"
                                                              : "memoryRequestBytes"]
                        .get<double>())
              << w["name"] << " " << strategy << ": limit below request";
        }
      }
    }
  }
  // A handful of VMs have too few samples in the last week; all others get numbers.
  for (const char* strategy : {"adaptive", "attune", "cruisekube", "vpa", "krr"}) {
    EXPECT_GE(withNumbers[strategy], 95) << strategy;
  }
}

}  // namespace
}  // namespace attune
