#include "metrics/trace/trace_source.h"

#include <gtest/gtest.h>

#include <string>

#include "trace_testing.h"

namespace attune::metrics {
namespace {

using namespace attune::literals;
using namespace std::chrono_literals;
using testing::dataDir;
using testing::freshDir;
using testing::rawRange;
using testing::unixTime;
using testing::writeFile;

constexpr std::int64_t kT0 = 1714521600;  // 2024-05-01T00:00:00Z
const ContainerId kApp{"shop", "web-7d9f-abcde", "app"};

// small.csv's app container: cpu 0.25 @ T0, 0.3 @ T0+5m, 0.35 @ T0+10m; cpu request 250m until
// T0+10m, then 300m.
std::unique_ptr<TraceSource> loadSmall(TraceOptions options = {}) {
  auto source = TraceSource::load({dataDir() / "attune/small.csv"}, std::move(options));
  EXPECT_TRUE(source.has_value()) << source.error().message;
  return source ? std::move(*source) : nullptr;
}

std::vector<Point> appCpu(TraceSource& source, const Range& range) {
  auto series = source.cpuUsage(Scope{{"shop"}}, range);
  EXPECT_TRUE(series.has_value());
  for (auto& s : *series) {
    if (s.id == kApp) return s.points;
  }
  return {};
}

std::vector<double> values(const std::vector<Point>& points) {
  std::vector<double> out;
  for (const auto& p : points) out.push_back(p.value);
  return out;
}

TEST(TraceSourceTest, RawRangeReturnsTheSamplesWithinBothEnds) {
  auto source = loadSmall();
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(values(appCpu(*source, rawRange(unixTime(kT0), unixTime(kT0 + 300)))),
            (std::vector<double>{0.25, 0.3}));
  EXPECT_EQ(values(appCpu(*source, rawRange(unixTime(kT0 + 1), unixTime(kT0 + 600)))),
            (std::vector<double>{0.3, 0.35}));
  EXPECT_TRUE(appCpu(*source, rawRange(unixTime(kT0 + 601), unixTime(kT0 + 900))).empty());
}

TEST(TraceSourceTest, SteppedRangeTakesTheLastSampleWithinTheLookback) {
  auto source = loadSmall();
  ASSERT_NE(source, nullptr);
  const Range range{unixTime(kT0 - 60), unixTime(kT0 + 1200), 2min};
  const auto points = appCpu(*source, range);
  // Step points T0-1m (nothing yet), T0+1m, +3m: 0.25; +5m, +7m, +9m: 0.3; +11m, +13m: 0.35;
  // +15m and later: the last sample is 5 minutes old or more, so no point.
  EXPECT_EQ(values(points), (std::vector<double>{0.25, 0.25, 0.3, 0.3, 0.3, 0.35, 0.35}));
  EXPECT_EQ(points.front().time, unixTime(kT0 + 60));
  EXPECT_EQ(points.back().time, unixTime(kT0 + 780));
}

TEST(TraceSourceTest, LookbackIsConfigurable) {
  auto source = loadSmall({.lookback = 1h});
  ASSERT_NE(source, nullptr);
  const Range range{unixTime(kT0), unixTime(kT0 + 1800), 15min};
  EXPECT_EQ(values(appCpu(*source, range)), (std::vector<double>{0.25, 0.35, 0.35}));
}

TEST(TraceSourceTest, ScopeFiltersByNamespace) {
  auto source = loadSmall();
  ASSERT_NE(source, nullptr);
  const Range range = rawRange(unixTime(kT0), unixTime(kT0 + 600));
  EXPECT_EQ(source->memoryWorkingSet({}, range)->size(), 3u);
  EXPECT_EQ(source->memoryWorkingSet(Scope{{"shop"}}, range)->size(), 2u);
  EXPECT_EQ(source->memoryWorkingSet(Scope{{"batch"}}, range)->size(), 1u);
  EXPECT_EQ(source->memoryWorkingSet(Scope{{"shop", "batch"}}, range)->size(), 3u);
  EXPECT_TRUE(source->memoryWorkingSet(Scope{{"other"}}, range)->empty());
  EXPECT_TRUE(source->resources(Scope{{"other"}}, unixTime(kT0))->empty());
  EXPECT_TRUE(source->podOwners(Scope{{"other"}}, unixTime(kT0))->empty());
  EXPECT_EQ(source->oomKills(Scope{{"shop"}}, range)->size(), 0u);
  EXPECT_EQ(source->restartCounts(Scope{{"batch"}}, unixTime(kT0))->size(), 1u);
}

TEST(TraceSourceTest, ExcludedContainersAreNeverReturned) {
  auto source = loadSmall();
  ASSERT_NE(source, nullptr);
  const Range range = rawRange(unixTime(kT0), unixTime(kT0 + 600));
  const Time end = unixTime(kT0 + 600);
  // small.csv: shop/web-7d9f-abcde/{app,sidecar}, batch/nightly-28571-xyz/main (OOM-killed).
  const Scope scope{{}, {"sidecar", "main"}};
  const auto onlyApp = [](const auto& result) {
    EXPECT_TRUE(result.has_value());
    std::vector<ContainerId> ids;
    for (const auto& x : *result) ids.push_back(x.id);
    return ids == std::vector<ContainerId>{kApp};
  };
  EXPECT_TRUE(onlyApp(source->cpuUsage(scope, range)));
  EXPECT_TRUE(onlyApp(source->memoryWorkingSet(scope, range)));
  EXPECT_TRUE(onlyApp(source->cpuPressureWaiting(scope, range)));
  EXPECT_TRUE(onlyApp(source->cpuThrottleRatio(scope, range)));
  EXPECT_TRUE(onlyApp(source->restartCounts(scope, end)));
  EXPECT_TRUE(onlyApp(source->resources(scope, end)));
  EXPECT_EQ(source->oomKills(Scope{}, range)->size(), 1u);
  EXPECT_TRUE(source->oomKills(scope, range)->empty());
  // Owners are per pod: the batch pod, all of whose containers are excluded, keeps its owner.
  EXPECT_EQ(source->podOwners(scope, end)->size(), 2u);
  // Exclusions combine with the namespace filter.
  EXPECT_TRUE(source->memoryWorkingSet(Scope{{"batch"}, {"main"}}, range)->empty());
  EXPECT_EQ(source->memoryWorkingSet(Scope{{"batch"}, {"app"}}, range)->size(), 1u);
}

TEST(TraceSourceTest, ResourcesAreThoseOfTheLatestRowAtOrBeforeTheTime) {
  auto source = loadSmall();
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(source->resources({}, unixTime(kT0 - 1))->empty());
  EXPECT_TRUE(source->podOwners({}, unixTime(kT0 - 1))->empty());
  auto requestAt = [&](std::int64_t t) {
    return (*source->resources(Scope{{"shop"}}, unixTime(t)))[0].cpuRequest;
  };
  EXPECT_EQ(requestAt(kT0), 250_m);
  EXPECT_EQ(requestAt(kT0 + 599), 250_m);
  EXPECT_EQ(requestAt(kT0 + 600), 300_m);
  EXPECT_EQ(requestAt(kT0 + 86400), 300_m);  // the last row stays in force
  auto batch = source->resources(Scope{{"batch"}}, unixTime(kT0 + 600));
  EXPECT_EQ((*batch)[0].memoryRequest, 1_Gi);
  EXPECT_EQ((*batch)[0].memoryLimit, 2_Gi);
}

TEST(TraceSourceTest, DuplicateTimestampsKeepTheLastRowAndFilesMerge) {
  const auto dir = freshDir();
  const std::string header =
      "timestamp,namespace,workload_kind,workload,pod,container,cpu_usage_cores,"
      "memory_working_set_bytes,cpu_request,cpu_limit,memory_request,memory_limit\n";
  writeFile(dir, "b.csv",
            header + "1714521900,ns,Pod,p,p,c,2,1,,,,\n1714521600,ns,Pod,p,p,c,1,1,,,,\n");
  writeFile(dir, "a.csv", header + "1714521600,ns,Pod,p,p,c,9,1,,,,\n");
  writeFile(dir, "notes.txt", "not a trace");
  auto source = TraceSource::load({dir});
  ASSERT_TRUE(source.has_value()) << source.error().message;
  auto cpu = (*source)->cpuUsage({}, rawRange(unixTime(kT0), unixTime(kT0 + 300)));
  ASSERT_EQ(cpu->size(), 1u);
  // a.csv is read first; b.csv's row for the same timestamp comes later and wins.
  EXPECT_EQ(values((*cpu)[0].points), (std::vector<double>{1, 2}));
}

TEST(TraceSourceTest, MixesFormatsAndReportsTheSpan) {
  auto source = TraceSource::load({dataDir() / "attune/small.csv", dataDir() / "bitbrains"});
  ASSERT_TRUE(source.has_value()) << source.error().message;
  EXPECT_EQ((*source)->span().first, unixTime(1372629804));
  EXPECT_EQ((*source)->span().last, unixTime(kT0 + 600));
  EXPECT_EQ((*source)->podOwners({}, unixTime(kT0))->size(), 4u);
}

TEST(TraceSourceTest, MetricsTheTraceLacksAreEmpty) {
  auto source = TraceSource::load({dataDir() / "bitbrains"});
  ASSERT_TRUE(source.has_value());
  const Range range{(*source)->span().first, (*source)->span().last, 5min};
  EXPECT_TRUE((*source)->cpuPressureWaiting({}, range)->empty());
  EXPECT_TRUE((*source)->cpuThrottleRatio({}, range)->empty());
  EXPECT_TRUE((*source)->oomKills({}, range)->empty());
  EXPECT_TRUE((*source)->restartCounts({}, range.end)->empty());
  EXPECT_TRUE((*source)->nodeLoad(range)->empty());
  EXPECT_TRUE((*source)->nodeCapacity(range.end)->empty());
}

TEST(TraceSourceTest, RejectsBadRanges) {
  auto source = loadSmall({.maxStepPoints = 100});
  ASSERT_NE(source, nullptr);
  auto backwards = source->cpuUsage({}, Range{unixTime(kT0), unixTime(kT0 - 1), 1min});
  ASSERT_FALSE(backwards.has_value());
  EXPECT_EQ(backwards.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(source->oomKills({}, Range{unixTime(kT0), unixTime(kT0 - 1), 1min}).has_value());
  EXPECT_FALSE(
      source->cpuUsage({}, Range{unixTime(kT0), unixTime(kT0 + 100 * 60), 1min}).has_value());
  EXPECT_TRUE(
      source->cpuUsage({}, Range{unixTime(kT0), unixTime(kT0 + 99 * 60), 1min}).has_value());
}

TEST(TraceSourceTest, MissingInputsAreNotFound) {
  const auto dir = freshDir();
  EXPECT_EQ(TraceSource::load({dir / "absent.csv"}).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(TraceSource::load({dir}).error().code, ErrorCode::kNotFound);  // no trace files
  EXPECT_EQ(TraceSource::load({}).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(testing::loadError("t.csv", "").message, "t.csv: empty file");
}

}  // namespace
}  // namespace attune::metrics
