// The usage reads of several policies of one namespace against a real Prometheus (backfilled
// with the synthetic cluster): the HTTP requests sent are counted and their ranges read back.
// N histories of `shop` refreshed through one SharedUsageReads send one range query per metric,
// not N; the next pass asks only for the new steps; a new policy joining an up-to-date namespace
// widens that one read instead of adding its own; every history ends as it would reading alone.
// The operator's query metrics (attune_prometheus_*) count the same queries.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "metrics/exposition/registry.h"
#include "metrics/prometheus/prometheus_source.h"
#include "metrics/prometheus/query_metrics.h"
#include "support/prometheus/prometheus_server.h"
#include "support/prometheus/synthetic_cluster.h"
#include "usage/shared_usage_reads.h"
#include "usage/usage_history.h"

namespace attune::usage {
namespace {

using metrics::ContainerId;
using std::chrono::hours;
using std::chrono::minutes;
using testing::PrometheusServer;
using testing::SyntheticCluster;

constexpr Duration kStep = minutes(5);
constexpr Duration kWindow = hours(2);
constexpr int kPolicies = 5;

// Forwards to libcurl and keeps the form body of every range query sent.
class RecordingTransport final : public http::HttpTransport {
 public:
  explicit RecordingTransport(const http::HttpClientOptions& options) : curl_(options) {}
  Result<http::HttpResponse> send(const http::HttpRequest& request) override {
    if (request.url.find("/api/v1/query_range") != std::string::npos) {
      rangeQueries.push_back(request.body);
    }
    return curl_.send(request);
  }
  std::vector<std::string> rangeQueries;

 private:
  http::CurlHttpClient curl_;
};

// The value of `key` in a form body ("query=...&start=1700000000.000&...").
std::string formValue(const std::string& body, const std::string& key) {
  const std::string at = key + "=";
  std::size_t pos = body.starts_with(at) ? 0 : body.find("&" + at);
  if (pos == std::string::npos) return "";
  pos += body[pos] == '&' ? at.size() + 1 : at.size();
  return body.substr(pos, body.find('&', pos) - pos);
}

std::string seconds(Time t) { return metrics::PrometheusClient::formatTimestamp(t); }

std::optional<api::WorkloadRef> workloadOf(const ContainerId& id) {
  if (id.ns != "shop") return std::nullopt;
  if (id.pod.starts_with("web-")) return api::WorkloadRef{"shop", "Deployment", "web"};
  if (id.pod.starts_with("legacy-")) return api::WorkloadRef{"shop", "ReplicaSet", "legacy"};
  return std::nullopt;
}

// The policy scopes: the first keeps the sidecar istio-proxy, the others exclude it.
metrics::Scope scopeOf(int policy) {
  metrics::Scope scope{.namespaces = {"shop"}, .excludedContainers = {"debug"}};
  if (policy > 0) scope.excludedContainers.push_back("istio-proxy");
  return scope;
}

UsageHistory newHistory() {
  return UsageHistory(stats::StatsConfig{}, api::PodAggregation::kMax, kWindow, kStep, {});
}

// What a history holds, as comparable text: per container its sample count, last sample time
// and OOM memory.
std::string describe(const UsageHistory& h, Time now) {
  std::string out;
  for (const auto& [key, usage] : h.containers()) {
    const auto last = usage.stats().lastSampleTime();
    const auto oom = usage.stats().maxOomMemory(now);
    out += key.first.name + "/" + key.second +
           " samples=" + std::to_string(usage.stats().sampleCount()) +
           " last=" + (last ? seconds(*last) : "-") +
           " oom=" + (oom ? std::to_string(oom->value()) : "-") + "\n";
  }
  return out;
}

class SharedReadsIntegration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!PrometheusServer::available()) return;
    // Backfilled blocks must lie in the past: the data ends an hour ago, on a whole minute.
    const Time end = std::chrono::floor<minutes>(SystemClock().now() - hours(1));
    cluster_ = std::make_unique<SyntheticCluster>(end - hours(3), end);
    server_ = PrometheusServer::startForSuite(cluster_->openMetrics(), startError_);
  }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    if (!PrometheusServer::available()) GTEST_SKIP() << testing::kPrometheusMissing;
    ASSERT_NE(server_, nullptr) << startError_;
  }

  // A source over a recording transport, booking its queries in `registry`.
  std::unique_ptr<metrics::PrometheusSource> source(RecordingTransport*& transport,
                                                    metrics::PrometheusQueryMetrics* booked) {
    metrics::PrometheusOptions options;
    options.client.address = server_->address();
    options.client.retries = 0;
    options.http.timeout = std::chrono::seconds(10);
    if (booked != nullptr) options.onQuery = booked->observer();
    auto owned = std::make_unique<RecordingTransport>(options.http);
    transport = owned.get();
    return std::make_unique<metrics::PrometheusSource>(options, std::move(owned), clock_);
  }

  // One pass: every history announces its read, then refreshes through the shared reads.
  static void pass(metrics::MetricsSource& source, std::vector<UsageHistory*> histories, Time now) {
    SharedUsageReads reads;
    for (std::size_t i = 0; i < histories.size(); ++i) {
      if (auto range = histories[i]->nextRefresh(now)) {
        reads.expect(source, scopeOf(static_cast<int>(i)), *range);
      }
    }
    for (std::size_t i = 0; i < histories.size(); ++i) {
      const metrics::Scope scope = scopeOf(static_cast<int>(i));
      auto ok = histories[i]->refresh(
          [&](const ReadRange& range, const ViewUser& use) {
            return reads.use(source, scope, range, use);
          },
          now, workloadOf);
      ASSERT_TRUE(ok) << ok.error().toString();
    }
  }

  static inline std::unique_ptr<SyntheticCluster> cluster_;
  static inline std::unique_ptr<PrometheusServer> server_;
  static inline std::string startError_;
  SystemClock clock_;
};

TEST_F(SharedReadsIntegration, OneRangeQueryPerMetricPerPassThenOnlyTheNewSteps) {
  metrics::Registry registry;
  metrics::PrometheusQueryMetrics booked(registry);
  RecordingTransport* shared = nullptr;
  RecordingTransport* own = nullptr;
  auto sharedSource = source(shared, &booked);
  auto ownSource = source(own, nullptr);

  // Two passes 10 minutes apart, inside the data (OOM kill 90 minutes after its start).
  const Time first = floorToStep(cluster_->end() - minutes(20), kStep);
  const Time second = first + minutes(10);
  std::vector<UsageHistory> histories, alone;
  for (int i = 0; i < kPolicies; ++i) {
    histories.push_back(newHistory());
    alone.push_back(newHistory());
  }
  std::vector<UsageHistory*> all;
  for (auto& h : histories) all.push_back(&h);
  pass(*sharedSource, all, first);
  // One query per metric (cpu, psi, memory, OOM kills) for the five policies, over the window.
  ASSERT_EQ(shared->rangeQueries.size(), 4u);
  for (const std::string& body : shared->rangeQueries) {
    // OOM kills from one step earlier (usage_reading.h).
    const bool oom = body.find("OOMKilled") != std::string::npos;
    EXPECT_EQ(formValue(body, "start"), seconds(first - kWindow - (oom ? kStep : Duration::zero())))
        << body;
    EXPECT_EQ(formValue(body, "end"), seconds(first)) << body;
  }
  // The next pass: one query per metric again, from one step after the previous end.
  pass(*sharedSource, all, second);
  ASSERT_EQ(shared->rangeQueries.size(), 8u);
  for (std::size_t q = 4; q < 8; ++q) {
    const std::string& body = shared->rangeQueries[q];
    const bool oom = body.find("OOMKilled") != std::string::npos;
    EXPECT_EQ(formValue(body, "start"), seconds(first + (oom ? Duration::zero() : kStep))) << body;
    EXPECT_EQ(formValue(body, "end"), seconds(second)) << body;
  }

  // Read alone, each history sends its own four queries per pass and ends the same.
  for (int i = 0; i < kPolicies; ++i) {
    for (Time now : {first, second}) {
      auto ok = alone[i].refresh(*ownSource, scopeOf(i), now, workloadOf);
      ASSERT_TRUE(ok) << ok.error().toString();
    }
  }
  EXPECT_EQ(own->rangeQueries.size(), 2u * 4u * kPolicies);
  for (int i = 0; i < kPolicies; ++i) {
    EXPECT_FALSE(histories[i].containers().empty());
    EXPECT_EQ(describe(histories[i], second), describe(alone[i], second)) << i;
  }
  // The first policy keeps the sidecar, the others never see it.
  EXPECT_NE(histories[0].find({"shop", "Deployment", "web"}, "istio-proxy"), nullptr);
  for (int i = 1; i < kPolicies; ++i) {
    EXPECT_EQ(histories[i].find({"shop", "Deployment", "web"}, "istio-proxy"), nullptr) << i;
  }

  // The operator's metrics count what was sent.
  const std::string text = registry.render();
  EXPECT_NE(text.find("attune_prometheus_queries_total{query_type=\"cpu_usage\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("attune_prometheus_query_duration_seconds_count{query_type=\"oom_kills\"} 2"),
            std::string::npos)
      << text;
  EXPECT_EQ(
      text.find("attune_prometheus_response_bytes_total{query_type=\"memory_working_set\"} 0"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("attune_prometheus_response_bytes_total{query_type=\"memory_working_set\"}"),
            std::string::npos)
      << text;
}

TEST_F(SharedReadsIntegration, ANewPolicyWidensTheOneReadOfItsUpToDateNamespace) {
  RecordingTransport* shared = nullptr;
  RecordingTransport* own = nullptr;
  auto sharedSource = source(shared, nullptr);
  auto ownSource = source(own, nullptr);
  const Time first = floorToStep(cluster_->end() - minutes(20), kStep);
  const Time second = first + kStep;
  std::vector<UsageHistory> histories;
  for (int i = 0; i < 3; ++i) histories.push_back(newHistory());
  pass(*sharedSource, {&histories[0], &histories[1]}, first);
  ASSERT_EQ(shared->rangeQueries.size(), 4u);
  // The third policy is new at the second pass: still one query per metric, from its window's
  // start; the two others take their one new step out of it.
  pass(*sharedSource, {&histories[0], &histories[1], &histories[2]}, second);
  ASSERT_EQ(shared->rangeQueries.size(), 8u);
  EXPECT_EQ(formValue(shared->rangeQueries[4], "start"), seconds(second - kWindow));
  EXPECT_EQ(formValue(shared->rangeQueries[4], "end"), seconds(second));
  UsageHistory alone = newHistory();
  ASSERT_TRUE(alone.refresh(*ownSource, scopeOf(2), second, workloadOf));
  EXPECT_EQ(describe(histories[2], second), describe(alone, second));
  UsageHistory old = newHistory();
  ASSERT_TRUE(old.refresh(*ownSource, scopeOf(1), first, workloadOf));
  ASSERT_TRUE(old.refresh(*ownSource, scopeOf(1), second, workloadOf));
  EXPECT_EQ(describe(histories[1], second), describe(old, second));
}

}  // namespace
}  // namespace attune::usage
