// The simulator's exports read by the real tools: promtool backfills the OpenMetrics dump and
// lints the text exposition, and a Prometheus server serving the backfilled dump answers
// PrometheusSource's queries as SimMetricsSource answers them from the recorder.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/clock.h"
#include "metrics/prometheus/prometheus_source.h"
#include "sim/telemetry/openmetrics.h"
#include "sim/telemetry/prometheus_text.h"
#include "sim/telemetry/sim_metrics_source.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/prometheus/prometheus_server.h"
#include "unit/sim/telemetry/telemetry_fixture.h"

namespace attune::sim {
namespace {

using namespace attune::literals;
using metrics::ContainerId;
using metrics::Range;
using metrics::Scope;
using std::chrono::minutes;
using testing::PodBuilder;
using testing::resources;
using testing::TelemetryFixture;

constexpr int kMinutes = 180;
constexpr int kOomMinute = 90;

api::Pod ownedPod(std::string ns, std::string name, std::string kind, std::string owner,
                  api::ResourceRequirements r) {
  api::Pod pod = PodBuilder(std::move(ns), std::move(name)).container("app", std::move(r)).build();
  pod.metadata.ownerReferences.push_back({"v1", std::move(kind), std::move(owner), "u", true});
  return pod;
}

// Three hours at a 1-minute tick, ending on a whole minute an hour ago (backfilled blocks must
// lie before the server's head): a Deployment's two pods with throttling and pressure, a
// StatefulSet pod OOM-killed at minute 90, a CronJob's pod, a pod without owner whose last
// termination reason needs escaping, and two nodes.
class SimulatedHistory {
 public:
  SimulatedHistory()
      : end_(std::chrono::floor<minutes>(SystemClock().now() - std::chrono::hours(1))),
        f_(RecorderOptions{}, end_ - minutes(kMinutes)) {
    ClusterState& state = f_.state;
    api::Node n2 = testing::readyNode("n2", "7500m", "30Gi");
    n2.status.capacity.cpu = Quantity::parse("8").value();
    n2.status.capacity.memory = Quantity::parse("32Gi").value();
    n2.status.capacity.set("pods", Quantity::parse("110").value());
    EXPECT_TRUE(state.nodes.create(testing::readyNode("n1", "4", "16Gi")));
    EXPECT_TRUE(state.nodes.create(n2));
    api::ReplicaSet rs;
    rs.metadata.namespace_ = "shop";
    rs.metadata.name = "web-7d9c5";
    rs.metadata.ownerReferences.push_back({"apps/v1", "Deployment", "web", "d", true});
    EXPECT_TRUE(state.replicaSets.create(rs));
    api::Job job;
    job.metadata.namespace_ = "batch";
    job.metadata.name = "nightly-1";
    job.metadata.ownerReferences.push_back({"batch/v1", "CronJob", "nightly", "c", true});
    EXPECT_TRUE(state.jobs.create(job));

    const auto web = resources("250m", "128Mi", "500m", "256Mi");
    f_.addPod(ownedPod("shop", "web-7d9c5-a", "ReplicaSet", "web-7d9c5", web));
    f_.addPod(ownedPod("shop", "web-7d9c5-b", "ReplicaSet", "web-7d9c5", web), "n2");
    f_.addPod(ownedPod("data", "db-0", "StatefulSet", "db", resources("1", "1Gi", "2", "1Gi")));
    f_.addPod(ownedPod("batch", "nightly-1-q", "Job", "nightly-1", resources("100m", "", "", "")));
    f_.addPod(PodBuilder("data", "lonely").container("app", {}).build(), "n2");
    EXPECT_TRUE(state.pods.modify("data", "lonely", "", [](api::Pod& pod) {
      pod.status.containerStatuses[0].lastState.terminated =
          api::ContainerStateTerminated{1, "Error \"x\"\\y", "", {}, {}};
      return Result<Change>(Change::kMetadata);
    }));
    f_.addNode("n1");
    f_.addNode("n2");

    for (int minute = 1; minute <= kMinutes; ++minute) advance(minute);
  }

  TelemetryFixture& fixture() { return f_; }
  Time end() const { return end_; }
  Time start() const { return end_ - minutes(kMinutes); }

 private:
  void advance(int minute) {
    const double wave = 1 + std::sin(minute / 20.0);  // 0..2
    TelemetryFixture::run(f_.container("shop", "web-7d9c5-a", "app"), 0.2 + 0.1 * wave,
                          Bytes((100 + minute % 7) << 20), 60 + minute % 5 * 10, 0.05 * wave);
    TelemetryFixture::run(f_.container("shop", "web-7d9c5-b", "app"), 0.4, Bytes(150 << 20), 120);
    TelemetryFixture::run(f_.container("batch", "nightly-1-q", "app"), 0.75, Bytes(300 << 20));
    TelemetryFixture::run(f_.container("data", "lonely", "app"), 0.01 * (minute % 3), 20_Mi);
    ContainerRuntime& pg = f_.container("data", "db-0", "app");
    const bool beforeKill = minute < kOomMinute;
    TelemetryFixture::run(pg, 1, Bytes((beforeKill ? 600 + 4 * minute : 60 + minute) << 20));
    if (minute == kOomMinute) {
      pg.lastOomKillAt = f_.clock.now() + std::chrono::seconds(30);
      pg.memoryAtLastOomKill = 1_Gi;
      EXPECT_TRUE(f_.state.pods.modify("data", "db-0", "", [](api::Pod& pod) {
        pod.status.containerStatuses[0].restartCount = 1;
        pod.status.containerStatuses[0].lastState.terminated =
            api::ContainerStateTerminated{137, "OOMKilled", "", {}, {}};
        return Result<Change>(Change::kMetadata);
      }));
    }
    for (auto& [name, node] : f_.nodes) {
      node.load1 = name == "n1" ? 1 + 0.25 * (minute % 4) : 2.5;
      node.cpuSecondsTotal += name == "n1" ? 120 : 30;
      node.memoryWorkingSet = Bytes((name == "n1" ? 3000 : 800) << 20);
    }
    f_.tick();
  }

  Time end_;
  TelemetryFixture f_;
};

std::string openMetricsOf(SimulatedHistory& h) {
  std::ostringstream out;
  auto ok = writeOpenMetrics(out, h.fixture().recorder, h.fixture().state);
  EXPECT_TRUE(ok) << ok.error().toString();
  return out.str();
}

bool writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return out.good();
}

TEST(SimTelemetryPromtool, BackfillsTheDumpAndLintsTheExposition) {
  if (!attune::testing::findOnPath("promtool")) {
    GTEST_SKIP() << "promtool is not on PATH (the Debian prometheus package provides it)";
  }
  SimulatedHistory history;
  attune::testing::TempDir dir;
  const auto data = dir.path() / "sim.om";
  const auto text = dir.path() / "metrics.prom";
  ASSERT_TRUE(writeFile(data, openMetricsOf(history)));
  auto& f = history.fixture();
  ASSERT_TRUE(writeFile(text, renderPrometheusText(f.state, f.pods, f.nodes)));

  const auto backfill =
      attune::testing::runCommand("promtool tsdb create-blocks-from openmetrics '" + data.string() +
                                  "' '" + (dir.path() / "tsdb").string() + "' 2>&1");
  EXPECT_EQ(backfill.exitCode, 0) << backfill.out << backfill.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "tsdb"));

  const auto lint =
      attune::testing::runCommand("promtool check metrics < '" + text.string() + "' 2>&1");
  EXPECT_EQ(lint.exitCode, 0) << lint.out << lint.err;
}

// PrometheusSource over the backfilled dump against SimMetricsSource over the recorder.
class SimTelemetryPrometheus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!attune::testing::PrometheusServer::available()) return;
    history_ = std::make_unique<SimulatedHistory>();
    server_ =
        attune::testing::PrometheusServer::startForSuite(openMetricsOf(*history_), startError_);
  }
  static void TearDownTestSuite() {
    server_.reset();
    history_.reset();
  }

  void SetUp() override {
    if (!attune::testing::PrometheusServer::available())
      GTEST_SKIP() << attune::testing::kPrometheusMissing;
    ASSERT_NE(server_, nullptr) << startError_;
    metrics::PrometheusOptions options;
    options.client.address = server_->address();
    options.http.timeout = std::chrono::seconds(10);
    prometheus_ = std::make_unique<metrics::PrometheusSource>(options, clock_);
    sim_ =
        std::make_unique<SimMetricsSource>(history_->fixture().recorder, history_->fixture().state);
  }

  // Every 5 minutes from 10 minutes after the data starts to its end: both sources use 5-minute
  // windows, whose edges fall on samples, so Prometheus does not extrapolate.
  Range range() const {
    return Range{history_->start() + minutes(10), history_->end(), minutes(5)};
  }

  static void expectSameSeries(const std::vector<metrics::ContainerSeries>& fromPrometheus,
                               const std::vector<metrics::ContainerSeries>& fromSim) {
    ASSERT_EQ(fromPrometheus.size(), fromSim.size());
    for (std::size_t i = 0; i < fromSim.size(); ++i) {
      const auto& p = fromPrometheus[i];
      const auto& s = fromSim[i];
      EXPECT_EQ(p.id, s.id);
      ASSERT_EQ(p.points.size(), s.points.size()) << metrics::toString(s.id);
      for (std::size_t k = 0; k < s.points.size(); ++k) {
        EXPECT_EQ(p.points[k].time, s.points[k].time);
        EXPECT_NEAR(p.points[k].value, s.points[k].value, 1e-9 * (1 + std::abs(s.points[k].value)))
            << metrics::toString(s.id) << " point " << k;
      }
    }
  }

  static inline std::unique_ptr<SimulatedHistory> history_;
  static inline std::unique_ptr<attune::testing::PrometheusServer> server_;
  static inline std::string startError_;
  SystemClock clock_;
  std::unique_ptr<metrics::PrometheusSource> prometheus_;
  std::unique_ptr<SimMetricsSource> sim_;
};

TEST_F(SimTelemetryPrometheus, ContainerRangeQueriesAgree) {
  for (const Scope& scope : {Scope{}, Scope{{"shop", "data"}}}) {
    auto pc = prometheus_->cpuUsage(scope, range());
    auto sc = sim_->cpuUsage(scope, range());
    ASSERT_TRUE(pc && sc);
    EXPECT_EQ(sc->size(), scope.allNamespaces() ? 5u : 4u);
    expectSameSeries(*pc, *sc);

    auto pm = prometheus_->memoryWorkingSet(scope, range());
    auto sm = sim_->memoryWorkingSet(scope, range());
    ASSERT_TRUE(pm && sm);
    expectSameSeries(*pm, *sm);

    auto pt = prometheus_->cpuThrottleRatio(scope, range());
    auto st = sim_->cpuThrottleRatio(scope, range());
    ASSERT_TRUE(pt && st);
    expectSameSeries(*pt, *st);

    auto pp = prometheus_->cpuPressureWaiting(scope, range());
    auto sp = sim_->cpuPressureWaiting(scope, range());
    ASSERT_TRUE(pp && sp);
    expectSameSeries(*pp, *sp);
  }
}

TEST_F(SimTelemetryPrometheus, StateQueriesAgree) {
  const Time at = history_->end();
  auto pr = prometheus_->restartCounts(Scope{}, at);
  auto sr = sim_->restartCounts(Scope{}, at);
  ASSERT_TRUE(pr && sr);
  ASSERT_EQ(pr->size(), sr->size());
  for (std::size_t i = 0; i < sr->size(); ++i) {
    EXPECT_EQ((*pr)[i].id, (*sr)[i].id);
    EXPECT_EQ((*pr)[i].restarts, (*sr)[i].restarts);
  }

  auto pres = prometheus_->resources(Scope{}, at);
  auto sres = sim_->resources(Scope{}, at);
  ASSERT_TRUE(pres && sres);
  ASSERT_EQ(pres->size(), sres->size());
  for (std::size_t i = 0; i < sres->size(); ++i) {
    const auto& p = (*pres)[i];
    const auto& s = (*sres)[i];
    EXPECT_EQ(p.id, s.id);
    EXPECT_EQ(p.cpuRequest, s.cpuRequest) << metrics::toString(s.id);
    EXPECT_EQ(p.cpuLimit, s.cpuLimit) << metrics::toString(s.id);
    EXPECT_EQ(p.memoryRequest, s.memoryRequest) << metrics::toString(s.id);
    EXPECT_EQ(p.memoryLimit, s.memoryLimit) << metrics::toString(s.id);
  }

  auto po = prometheus_->podOwners(Scope{}, at);
  auto so = sim_->podOwners(Scope{}, at);
  ASSERT_TRUE(po && so);
  ASSERT_EQ(po->size(), so->size());
  for (std::size_t i = 0; i < so->size(); ++i) {
    EXPECT_EQ((*po)[i].pod, (*so)[i].pod);
    EXPECT_EQ((*po)[i].workload, (*so)[i].workload) << (*so)[i].pod;
  }

  auto pn = prometheus_->nodeCapacity(at);
  auto sn = sim_->nodeCapacity(at);
  ASSERT_TRUE(pn && sn);
  ASSERT_EQ(pn->size(), 2u);
  ASSERT_EQ(sn->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*pn)[i].node, (*sn)[i].node);
    EXPECT_EQ((*pn)[i].cpu, (*sn)[i].cpu);
    EXPECT_EQ((*pn)[i].memory, (*sn)[i].memory);
  }
}

TEST_F(SimTelemetryPrometheus, NodeLoadAndOomKillsAgree) {
  auto pl = prometheus_->nodeLoad(range());
  auto sl = sim_->nodeLoad(range());
  ASSERT_TRUE(pl && sl);
  ASSERT_EQ(pl->size(), sl->size());
  for (std::size_t i = 0; i < sl->size(); ++i) {
    EXPECT_EQ((*pl)[i].node, (*sl)[i].node);
    ASSERT_EQ((*pl)[i].points.size(), (*sl)[i].points.size());
    for (std::size_t k = 0; k < (*sl)[i].points.size(); ++k) {
      EXPECT_EQ((*pl)[i].points[k].time, (*sl)[i].points[k].time);
      EXPECT_DOUBLE_EQ((*pl)[i].points[k].value, (*sl)[i].points[k].value);
    }
  }

  // Prometheus can only place a kill at the end of the step that saw it; the simulator knows
  // the exact time.
  auto pk = prometheus_->oomKills(Scope{}, range());
  auto sk = sim_->oomKills(Scope{}, range());
  ASSERT_TRUE(pk && sk);
  ASSERT_EQ(sk->size(), 1u);
  ASSERT_EQ(pk->size(), 1u);
  EXPECT_EQ((*pk)[0].id, (ContainerId{"data", "db-0", "app"}));
  EXPECT_EQ((*sk)[0].id, (*pk)[0].id);
  EXPECT_EQ((*sk)[0].time, history_->start() + minutes(kOomMinute - 1) + std::chrono::seconds(30));
  EXPECT_GE((*pk)[0].time, (*sk)[0].time);
  EXPECT_LE((*pk)[0].time - (*sk)[0].time, range().step + minutes(1));
  EXPECT_EQ((*sk)[0].memoryAtKill, 1_Gi);
}

}  // namespace
}  // namespace attune::sim
