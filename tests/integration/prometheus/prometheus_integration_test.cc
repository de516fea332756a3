// PrometheusSource against a real Prometheus server (backfilled with synthetic cAdvisor,
// kube-state-metrics and node-exporter series) and against a tiny local server for the
// failures a healthy Prometheus does not produce on demand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/clock.h"
#include "metrics/prometheus/prometheus_source.h"
#include "support/prometheus/local_http_server.h"
#include "support/prometheus/prometheus_server.h"
#include "support/prometheus/synthetic_cluster.h"

namespace attune::metrics {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::LocalHttpServer;
using testing::PrometheusServer;
using testing::SyntheticCluster;

constexpr double kMi = 1024.0 * 1024.0;

PrometheusOptions optionsFor(const std::string& address) {
  PrometheusOptions options;
  options.client.address = address;
  options.client.retries = 2;
  options.client.backoff =
      BackoffPolicy{std::chrono::milliseconds(100), 2.0, seconds(1), Duration::zero()};
  options.http.timeout = seconds(10);
  return options;
}

std::map<ContainerId, std::vector<Point>> byContainer(const std::vector<ContainerSeries>& all) {
  std::map<ContainerId, std::vector<Point>> out;
  for (const auto& s : all) {
    EXPECT_TRUE(out.emplace(s.id, s.points).second) << "duplicate series " << toString(s.id);
  }
  return out;
}

class PrometheusIntegration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!PrometheusServer::available()) return;
    // Backfilled blocks must lie in the past: the data ends an hour ago, on a whole minute.
    const Time end = std::chrono::floor<minutes>(SystemClock().now() - std::chrono::hours(1));
    cluster_ = std::make_unique<SyntheticCluster>(end - std::chrono::hours(3), end);
    server_ = PrometheusServer::startForSuite(cluster_->openMetrics(), startError_);
  }

  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    if (!PrometheusServer::available()) {
      GTEST_SKIP() << testing::kPrometheusMissing;
    }
    ASSERT_NE(server_, nullptr) << startError_;
    source_ = std::make_unique<PrometheusSource>(optionsFor(server_->address()), clock_);
  }

  const SyntheticCluster& cluster() const { return *cluster_; }
  // Every minute from 10 minutes after the data starts to its end.
  Range everyMinute() const {
    return Range{cluster().start() + minutes(10), cluster().end(), minutes(1)};
  }
  size_t minutesInRange() const { return 171; }

  static inline std::unique_ptr<SyntheticCluster> cluster_;
  static inline std::unique_ptr<PrometheusServer> server_;
  static inline std::string startError_;
  SystemClock clock_;
  std::unique_ptr<PrometheusSource> source_;
};

TEST_F(PrometheusIntegration, CpuUsagePressureAndThrottleRates) {
  const Scope scope{{"shop", "data"}};
  auto usage = source_->cpuUsage(scope, everyMinute());
  auto pressure = source_->cpuPressureWaiting(scope, everyMinute());
  auto throttle = source_->cpuThrottleRatio(scope, everyMinute());
  ASSERT_TRUE(usage.has_value()) << usage.error().message;
  ASSERT_TRUE(pressure.has_value()) << pressure.error().message;
  ASSERT_TRUE(throttle.has_value()) << throttle.error().message;
  const auto u = byContainer(*usage), p = byContainer(*pressure), t = byContainer(*throttle);
  EXPECT_EQ(u.size(), 5u);  // 3 in shop, 2 in data; no "POD" or pod-level series
  EXPECT_EQ(p.size(), 5u);
  EXPECT_EQ(t.size(), 5u);
  for (const auto& c : cluster().containers()) {
    if (c.ns != "shop" && c.ns != "data") continue;
    const ContainerId id{c.ns, c.pod, c.container};
    ASSERT_TRUE(u.contains(id) && p.contains(id) && t.contains(id)) << toString(id);
    ASSERT_EQ(u.at(id).size(), minutesInRange()) << toString(id);
    EXPECT_EQ(u.at(id).front().time, everyMinute().start);
    EXPECT_EQ(u.at(id).back().time, everyMinute().end);
    for (const Point& point : u.at(id))
      EXPECT_NEAR(point.value, c.cpuCores, 1e-9 + c.cpuCores * 1e-6);
    for (const Point& point : p.at(id)) EXPECT_NEAR(point.value, 0.1 * c.cpuCores, 1e-9);
    for (const Point& point : t.at(id)) EXPECT_NEAR(point.value, c.throttleRatio, 1e-9);
  }
  auto cluster = source_->cpuUsage(Scope{}, everyMinute());
  ASSERT_TRUE(cluster.has_value()) << cluster.error().message;
  EXPECT_EQ(cluster->size(), 8u);  // every container with CPU series, all namespaces
}

TEST_F(PrometheusIntegration, MemoryWorkingSetIsExactAndNonFiniteSamplesAreDropped) {
  auto memory = source_->memoryWorkingSet(Scope{{"shop", "data", "odd"}}, everyMinute());
  ASSERT_TRUE(memory.has_value()) << memory.error().message;
  const auto m = byContainer(*memory);
  EXPECT_FALSE(m.contains(ContainerId{"odd", "allnan", "app"})) << "all-NaN series is absent";
  EXPECT_EQ(m.size(), 6u);
  for (const auto& [id, points] : m) {
    const auto& c = cluster().container(id.pod, id.container);
    size_t finite = 0;
    for (Time t = everyMinute().start; t <= everyMinute().end; t += minutes(1)) {
      finite += cluster().memoryAt(c, t).has_value();
    }
    ASSERT_EQ(points.size(), finite) << toString(id);
    for (const Point& point : points) {
      ASSERT_EQ(point.value, cluster().memoryAt(c, point.time)) << toString(id);
    }
  }
  EXPECT_LT(m.at(ContainerId{"odd", "nan-pod", "app"}).size(), minutesInRange() / 2);
}

TEST_F(PrometheusIntegration, RangesBeyondItsResolutionOrItsSampleBudgetAreReadInParts) {
  // Every 500ms over the range: 20,400 steps, which Prometheus refuses in one query.
  const Range fine{everyMinute().start, everyMinute().end, std::chrono::milliseconds(500)};
  ASSERT_GT((fine.end - fine.start) / fine.step, kMaxStepsPerRangeQuery);
  const auto read = [&](std::size_t maxSamples, std::size_t& queries) {
    PrometheusOptions options = optionsFor(server_->address());
    options.maxSamplesPerQuery = maxSamples;
    options.onQuery = [&queries](const QueryRecord& record) {
      EXPECT_TRUE(record.ok);
      ++queries;
    };
    PrometheusSource source(options, clock_);
    return source.memoryWorkingSet(Scope{{"shop"}}, fine);
  };
  std::size_t atBound = 0;
  auto memory = read(/*maxSamples=*/0, atBound);
  ASSERT_TRUE(memory.has_value()) << memory.error().message;
  EXPECT_EQ(atBound, 2u);  // 11,001 points, then 9,400
  const auto m = byContainer(*memory);
  EXPECT_EQ(m.size(), 3u);
  const std::size_t steps = static_cast<std::size_t>((fine.end - fine.start) / fine.step);
  for (const auto& [id, points] : m) {
    const auto& c = cluster().container(id.pod, id.container);
    ASSERT_EQ(points.size(), steps + 1) << toString(id);  // the data has no gap in "shop"
    for (std::size_t i = 0; i < points.size(); ++i) {
      ASSERT_EQ(points[i].time, fine.start + static_cast<std::int64_t>(i) * fine.step);
    }
    // Each minute's sample holds until the next one.
    ASSERT_EQ(points.back().value, cluster().memoryAt(c, fine.end)) << toString(id);
  }
  // 3 series and 6,000 samples a query: 2,000 points a part after the first of 60.
  std::size_t budgeted = 0;
  auto small = read(/*maxSamples=*/6'000, budgeted);
  ASSERT_TRUE(small.has_value()) << small.error().message;
  EXPECT_EQ(budgeted, 12u);  // 60 + 2,000 × 10 + 341
  const auto s = byContainer(*small);
  ASSERT_EQ(s.size(), m.size());
  for (const auto& [id, points] : m) {
    ASSERT_TRUE(s.contains(id)) << toString(id);
    ASSERT_EQ(s.at(id).size(), points.size()) << toString(id);
    for (std::size_t i = 0; i < points.size(); ++i) {
      ASSERT_EQ(s.at(id)[i].time, points[i].time);
      ASSERT_EQ(s.at(id)[i].value, points[i].value);
    }
  }
}

TEST_F(PrometheusIntegration, NoSeriesIsAnEmptyAnswer) {
  const Scope nowhere{{"no-such-namespace"}};
  auto usage = source_->cpuUsage(nowhere, everyMinute());
  auto resources = source_->resources(nowhere, cluster().end());
  auto owners = source_->podOwners(nowhere, cluster().end());
  ASSERT_TRUE(usage.has_value()) << usage.error().message;
  ASSERT_TRUE(resources.has_value()) << resources.error().message;
  ASSERT_TRUE(owners.has_value()) << owners.error().message;
  EXPECT_TRUE(usage->empty());
  EXPECT_TRUE(resources->empty());
  EXPECT_TRUE(owners->empty());
}

TEST_F(PrometheusIntegration, ResourcesRestartsAndOwners) {
  auto resources = source_->resources(Scope{{"shop", "data"}}, cluster().end());
  ASSERT_TRUE(resources.has_value()) << resources.error().message;
  std::map<ContainerId, ContainerResourceValues> r;
  for (const auto& x : *resources) r[x.id] = x;
  ASSERT_EQ(r.size(), 4u);
  const auto& app = r.at({"shop", "web-7d9c5-abcde", "app"});
  EXPECT_EQ(app.cpuRequest, Millicores(100));
  EXPECT_EQ(app.cpuLimit, Millicores(500));
  EXPECT_EQ(app.memoryRequest, Bytes(128 << 20));
  EXPECT_EQ(app.memoryLimit, Bytes(256 << 20));
  const auto& proxy = r.at({"shop", "web-7d9c5-fghij", "istio-proxy"});
  EXPECT_EQ(proxy.cpuRequest, Millicores(1));  // 0.0005 cores, rounded up
  EXPECT_EQ(proxy.memoryRequest, Bytes(64 << 20));
  EXPECT_EQ(proxy.cpuLimit, std::nullopt);
  EXPECT_EQ(proxy.memoryLimit, std::nullopt);
  const auto& db = r.at({"data", "db-0", "postgres"});
  EXPECT_EQ(db.cpuRequest, Millicores(1000));
  EXPECT_EQ(db.cpuLimit, Millicores(2000));
  EXPECT_EQ(db.memoryLimit, Bytes(512 << 20));

  auto restarts = source_->restartCounts(Scope{{"data", "batch"}}, cluster().end());
  ASSERT_TRUE(restarts.has_value()) << restarts.error().message;
  std::map<ContainerId, std::int64_t> counts;
  for (const auto& x : *restarts) counts[x.id] = x.restarts;
  EXPECT_EQ(counts,
            (std::map<ContainerId, std::int64_t>{{{"batch", "migrate-k2j4h", "migrate"}, 2},
                                                 {{"batch", "nightly-28900000-q8x7z", "job"}, 0},
                                                 {{"data", "db-0", "postgres"}, 1},
                                                 {{"data", "lonely", "main"}, 0}}));

  auto owners = source_->podOwners(Scope{}, cluster().end());
  ASSERT_TRUE(owners.has_value()) << owners.error().message;
  std::map<std::string, api::WorkloadRef> o;
  for (const auto& x : *owners) o[x.ns + "/" + x.pod] = x.workload;
  EXPECT_EQ(o, (std::map<std::string, api::WorkloadRef>{
                   {"batch/migrate-k2j4h", {"batch", "Job", "migrate"}},
                   {"batch/nightly-28900000-q8x7z", {"batch", "CronJob", "nightly"}},
                   {"data/db-0", {"data", "StatefulSet", "db"}},
                   {"data/lonely", {"data", "Pod", "lonely"}},
                   {"ops/agent-x2z4q", {"ops", "DaemonSet", "agent"}},
                   {"shop/legacy-5f6g7-zz9yx", {"shop", "ReplicaSet", "legacy-5f6g7"}},
                   {"shop/web-7d9c5-abcde", {"shop", "Deployment", "web"}},
                   {"shop/web-7d9c5-fghij", {"shop", "Deployment", "web"}}}));
}

// The containers of `items` (anything with an `id`), sorted.
template <typename T>
std::vector<ContainerId> idsOf(const std::vector<T>& items) {
  std::vector<ContainerId> out;
  for (const auto& x : items) out.push_back(x.id);
  std::ranges::sort(out);
  return out;
}

TEST_F(PrometheusIntegration, ExcludedContainersAreNotReturned) {
  // "ap." would exclude "app" too if it were not escaped as a regular expression.
  const Scope scope{{"shop", "data"}, {"istio-proxy", "ap.", "postgres"}};
  const std::vector<ContainerId> kept = {{"data", "lonely", "main"},
                                         {"shop", "web-7d9c5-abcde", "app"},
                                         {"shop", "web-7d9c5-fghij", "app"}};
  auto usage = source_->cpuUsage(scope, everyMinute());
  auto pressure = source_->cpuPressureWaiting(scope, everyMinute());
  auto memory = source_->memoryWorkingSet(scope, everyMinute());
  auto throttle = source_->cpuThrottleRatio(scope, everyMinute());
  auto restarts = source_->restartCounts(scope, cluster().end());
  for (const auto* r : {&usage, &pressure, &memory, &throttle}) {
    ASSERT_TRUE(r->has_value()) << r->error().message;
    EXPECT_EQ(idsOf(**r), kept);
  }
  ASSERT_TRUE(restarts.has_value()) << restarts.error().message;
  EXPECT_EQ(idsOf(*restarts), kept);
  // Without the exclusions the same scope has the istio-proxy and postgres series.
  auto all = source_->cpuUsage(Scope{{"shop", "data"}}, everyMinute());
  ASSERT_TRUE(all.has_value()) << all.error().message;
  EXPECT_EQ(all->size(), kept.size() + 2);

  auto resources = source_->resources(scope, cluster().end());
  ASSERT_TRUE(resources.has_value()) << resources.error().message;
  EXPECT_EQ(idsOf(*resources), (std::vector<ContainerId>{{"shop", "web-7d9c5-abcde", "app"},
                                                         {"shop", "web-7d9c5-fghij", "app"}}));

  // postgres is the container killed for OOM: excluded, no kill; otherwise the kill is found.
  const Range range{cluster().start() + minutes(10), cluster().end(), minutes(5)};
  auto excludedKill = source_->oomKills(scope, range);
  ASSERT_TRUE(excludedKill.has_value()) << excludedKill.error().message;
  EXPECT_TRUE(excludedKill->empty());
  auto kill = source_->oomKills(Scope{{"data"}, {"istio-proxy", "ap."}}, range);
  ASSERT_TRUE(kill.has_value()) << kill.error().message;
  EXPECT_EQ(idsOf(*kill), (std::vector<ContainerId>{{"data", "db-0", "postgres"}}));

  // Owners are per pod: every pod keeps its owner, whatever its containers.
  auto owners = source_->podOwners(Scope{{"shop"}, {"app", "istio-proxy"}}, cluster().end());
  ASSERT_TRUE(owners.has_value()) << owners.error().message;
  EXPECT_EQ(owners->size(), 3u);
}

TEST_F(PrometheusIntegration, OomKillWithTheWorkingSetBeforeIt) {
  const Range range{cluster().start() + minutes(10), cluster().end(), minutes(5)};
  auto kills = source_->oomKills(Scope{{"shop", "data"}}, range);
  ASSERT_TRUE(kills.has_value()) << kills.error().message;
  ASSERT_EQ(kills->size(), 1u);
  const OomKill& kill = kills->front();
  EXPECT_EQ(kill.id, (ContainerId{"data", "db-0", "postgres"}));
  EXPECT_GE(kill.time, cluster().oomAt());
  EXPECT_LT(kill.time, cluster().oomAt() + range.step);
  EXPECT_EQ(kill.memoryAtKill, Bytes(500 << 20));
}

TEST_F(PrometheusIntegration, NodeLoadAndCapacity) {
  auto load = source_->nodeLoad(everyMinute());
  ASSERT_TRUE(load.has_value()) << load.error().message;
  ASSERT_EQ(load->size(), 2u);
  EXPECT_EQ((*load)[0].node, "node-a");
  EXPECT_EQ((*load)[1].node, "node-b");  // from instance "node-b:9100"
  ASSERT_EQ((*load)[0].points.size(), minutesInRange());
  for (const Point& p : (*load)[0].points) {
    const auto minute = std::chrono::floor<minutes>(p.time - cluster().start()).count();
    EXPECT_DOUBLE_EQ(p.value, 1 + 0.1 * (minute % 10));
  }
  for (const Point& p : (*load)[1].points) EXPECT_DOUBLE_EQ(p.value, 2.5);

  auto capacity = source_->nodeCapacity(cluster().end());
  ASSERT_TRUE(capacity.has_value()) << capacity.error().message;
  ASSERT_EQ(capacity->size(), 2u);
  EXPECT_EQ((*capacity)[0].node, "node-a");
  EXPECT_EQ((*capacity)[0].cpu, Millicores(4000));
  EXPECT_EQ((*capacity)[0].memory, Bytes(16LL << 30));
  EXPECT_EQ((*capacity)[1].cpu, Millicores(8000));
  EXPECT_EQ((*capacity)[1].memory, Bytes(32LL << 30));
}

TEST(PrometheusTls, VerifiesAgainstTheCaFileOrSkipsVerification) {
  if (!PrometheusServer::available() || !testing::findOnPath("openssl")) {
    GTEST_SKIP() << "prometheus, promtool or openssl is not on PATH";
  }
  const Time end = std::chrono::floor<minutes>(SystemClock().now() - std::chrono::hours(1));
  const SyntheticCluster cluster(end - minutes(30), end);
  auto server = PrometheusServer::start(cluster.openMetrics(), /*tls=*/true);
  ASSERT_TRUE(server.has_value()) << server.error().message;
  SimulatedClock clock(end);
  auto options = optionsFor((*server)->address());
  options.client.retries = 0;

  auto untrusted = PrometheusSource(options, clock).nodeCapacity(end);
  ASSERT_FALSE(untrusted.has_value());
  EXPECT_EQ(untrusted.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(untrusted.error().message.find("certificate"), std::string::npos)
      << untrusted.error().message;

  options.http.caFile = (*server)->caFile();
  auto trusted = PrometheusSource(options, clock).nodeCapacity(end);
  ASSERT_TRUE(trusted.has_value()) << trusted.error().message;
  EXPECT_EQ(trusted->size(), 2u);

  options.http.caFile.clear();
  options.http.insecureSkipVerify = true;
  auto insecure = PrometheusSource(options, clock).nodeCapacity(end);
  ASSERT_TRUE(insecure.has_value()) << insecure.error().message;
  EXPECT_EQ(insecure->size(), 2u);
}

// --- failures, through the real libcurl path -------------------------------------------------

const Time kAt = Time(seconds(1'700'000'000));
const Range kRange{kAt - minutes(60), kAt, minutes(5)};

TEST(PrometheusFailures, ServerDownIsUnavailableWithTheReason) {
  SimulatedClock clock(kAt);
  PrometheusSource source(
      optionsFor("http://127.0.0.1:" + std::to_string(testing::freeLocalPort())), clock);
  auto r = source.cpuUsage(Scope{{"shop"}}, kRange);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("connection refused"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("container_cpu_usage_seconds_total"), std::string::npos);
  EXPECT_EQ(clock.now() - kAt, std::chrono::milliseconds(100 + 200)) << "two retries";
}

TEST(PrometheusFailures, Http500IsRetriedThenUnavailable) {
  LocalHttpServer server([](const std::string&) {
    return LocalHttpServer::Reply{
        500, R"({"status":"error","errorType":"internal","error":"tsdb broke"})"};
  });
  SimulatedClock clock(kAt);
  PrometheusSource source(optionsFor(server.address()), clock);
  auto r = source.memoryWorkingSet(Scope{{"shop"}}, kRange);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("HTTP 500, internal: tsdb broke"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find(R"(namespace="shop")"), std::string::npos);
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST(PrometheusFailures, NoAnswerTimesOut) {
  LocalHttpServer server([](const std::string&) { return std::nullopt; });
  SimulatedClock clock(kAt);
  auto options = optionsFor(server.address());
  options.client.retries = 1;
  options.http.timeout = std::chrono::milliseconds(300);
  PrometheusSource source(options, clock);
  auto r = source.restartCounts(Scope{{"shop"}}, kAt);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("timed out after 300ms"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(PrometheusFailures, SendsFormAuthAndHeadersAndRereadsTheTokenFile) {
  LocalHttpServer server([](const std::string&) {
    return LocalHttpServer::Reply{200,
                                  R"({"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"namespace":"a","pod":"p","container":"c"},"value":[1700000000,"NaN"]}]}})"};
  });
  testing::TempDir dir;
  const auto tokenFile = dir.path() / "token";
  std::ofstream(tokenFile) << "tok-1\n";
  SimulatedClock clock(kAt);
  auto options = optionsFor(server.address());
  options.http.bearerTokenFile = tokenFile;
  options.http.headers = {{"X-Scope-OrgID", "tenant-a"}};
  PrometheusSource source(options, clock);

  auto first = source.restartCounts(Scope{{"a b"}}, kAt);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_TRUE(first->empty()) << "a NaN sample is dropped";
  std::ofstream(tokenFile) << "tok-2\n";
  std::filesystem::last_write_time(
      tokenFile, std::filesystem::last_write_time(tokenFile) + std::chrono::seconds(5));
  ASSERT_TRUE(source.restartCounts(Scope{{"a b"}}, kAt).has_value());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_TRUE(requests[0].starts_with("POST /api/v1/query HTTP/1.1\r\n")) << requests[0];
  EXPECT_NE(requests[0].find("Authorization: Bearer tok-1\r\n"), std::string::npos);
  EXPECT_NE(requests[1].find("Authorization: Bearer tok-2\r\n"), std::string::npos);
  EXPECT_NE(requests[0].find("X-Scope-OrgID: tenant-a\r\n"), std::string::npos);
  EXPECT_NE(requests[0].find("Content-Type: application/x-www-form-urlencoded\r\n"),
            std::string::npos);
  EXPECT_NE(requests[0].find("\r\n\r\nquery=max+by+%28namespace%2C+pod%2C+container%29+%28"
                             "kube_pod_container_status_restarts_total%7Bnamespace%3D%22a+b%22"
                             "%7D%29&time=1700000000.000"),
            std::string::npos)
      << requests[0];
}

TEST(PrometheusFailures, BasicAuthAndNoTokenInErrors) {
  LocalHttpServer server([](const std::string&) { return LocalHttpServer::Reply{503, "busy"}; });
  SimulatedClock clock(kAt);
  auto options = optionsFor(server.address());
  options.client.retries = 0;
  options.http.basicAuth = BasicAuth{"alice", "s3cret"};
  PrometheusSource source(options, clock);
  auto r = source.nodeCapacity(kAt);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("HTTP 503: busy"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().message.find("s3cret"), std::string::npos);
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_NE(server.requests()[0].find("Authorization: Basic YWxpY2U6czNjcmV0\r\n"),
            std::string::npos)
      << server.requests()[0];
}

}  // namespace
}  // namespace attune::metrics
