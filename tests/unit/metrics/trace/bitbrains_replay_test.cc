// Replays the whole Bitbrains GWA-T-12 "Rnd" July 2013 trace from ../shared (skipped when absent).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "metrics/trace/trace_source.h"
#include "support/shared_dir.h"

namespace attune::metrics {
namespace {

// Facts about the shared trace, counted independently with zcat and awk: 53,304 rows have zero
// cores or capacity; 85 VMs keep 8,200-8,400 usable rows, VMs 44-53 about 6,980, and five VMs
// far fewer.
constexpr std::int64_t kSkippedRows = 53'304;
const std::map<std::string, std::size_t> kShortVms = {
    {"vm-14-0", 420}, {"vm-20-0", 4476}, {"vm-38-0", 413}, {"vm-54-0", 1}, {"vm-82-0", 2073}};

TEST(BitbrainsReplayTest, EveryVmOfTheSharedTraceYieldsAFiniteSeries) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  const auto dir = shared / "traces/bitbrains-rnd-2013-7";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << dir << " is absent";
  auto source = TraceSource::load({dir});
  ASSERT_TRUE(source.has_value()) << source.error().message;
  EXPECT_EQ((*source)->skippedRows(), kSkippedRows);

  const TraceSpan span = (*source)->span();
  EXPECT_GT(span.last - span.first, std::chrono::days(29));
  const Range raw{span.first, span.last, Duration::zero()};
  auto cpu = (*source)->cpuUsage({}, raw);
  auto memory = (*source)->memoryWorkingSet({}, raw);
  ASSERT_TRUE(cpu.has_value());
  ASSERT_TRUE(memory.has_value());
  ASSERT_EQ(cpu->size(), 100u);
  ASSERT_EQ(memory->size(), 100u);
  for (std::size_t i = 0; i < cpu->size(); ++i) {
    const ContainerSeries& c = (*cpu)[i];
    SCOPED_TRACE(toString(c.id));
    const std::size_t n = c.points.size();
    if (auto it = kShortVms.find(c.id.pod); it != kShortVms.end()) {
      EXPECT_EQ(n, it->second);
    } else {
      EXPECT_GE(n, 6'900u);
      EXPECT_LE(n, 8'400u);
    }
    EXPECT_EQ((*memory)[i].points.size(), n);
    for (const ContainerSeries* series : {&c, &std::as_const((*memory)[i])}) {
      for (std::size_t k = 0; k < series->points.size(); ++k) {
        const Point& p = series->points[k];
        ASSERT_TRUE(std::isfinite(p.value) && p.value >= 0) << p.value;
        if (k > 0) {
          ASSERT_LT(series->points[k - 1].time, p.time);
        }
      }
    }
  }
  auto resources = (*source)->resources({}, span.last);
  ASSERT_EQ(resources->size(), 100u);
  for (const auto& r : *resources) {
    EXPECT_GT(r.cpuRequest.value_or(Millicores(0)), Millicores(0)) << toString(r.id);
  }

  // A 5-minute replay of the month: roughly one point per step for a full VM.
  const Range stepped{span.first, span.last, std::chrono::minutes(5)};
  auto replay = (*source)->cpuUsage(Scope{{"bitbrains"}}, stepped);
  ASSERT_TRUE(replay.has_value());
  EXPECT_EQ(replay->size(), 100u);
  EXPECT_GT(replay->front().points.size(), 8'000u);
}

}  // namespace
}  // namespace attune::metrics
