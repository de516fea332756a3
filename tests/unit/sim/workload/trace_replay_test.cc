#include "sim/workload/trace_replay.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/units.h"
#include "metrics/trace/trace_source.h"
#include "sim/workload/usage_model_factory.h"

namespace attune::sim {
namespace {

using namespace attune::literals;
using std::chrono::hours;
using std::chrono::seconds;

// web-0 starts with the trace (its first row is span().first); web-1 a minute later.
constexpr char kCsv[] =
    "timestamp,namespace,workload_kind,workload,pod,container,cpu_usage_cores,"
    "memory_working_set_bytes,cpu_request,cpu_limit,memory_request,memory_limit\n"
    "1714521600,shop,Deployment,web,web-0,app,0.25,100,250m,,128Mi,\n"
    "1714521900,shop,Deployment,web,web-0,app,0.5,200,250m,,128Mi,\n"
    "1714522500,shop,Deployment,web,web-0,app,1,300,500m,1,128Mi,\n"
    "1714521660,shop,Deployment,web,web-1,app,2,4000,1,,1Gi,\n";

const Time kSimStart = Time(seconds(1'000'000));

class TraceReplay : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test, so tests run in parallel (ctest -j) never share the file.
    const auto dir = std::filesystem::path(::testing::TempDir()) / "sim_workload_trace_replay" /
                     ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir);
    const auto file = dir / "trace.csv";
    std::ofstream(file) << kCsv;
    auto loaded = metrics::TraceSource::load({file});
    ASSERT_TRUE(loaded.has_value()) << loaded.error().toString();
    trace_ = std::move(*loaded);
  }

  UsageModelPtr replay(const std::string& container) {
    auto built = makeUsageModel({"trace", {}, container}, Random(1), {trace_.get(), kSimStart});
    EXPECT_TRUE(built.has_value()) << (built ? "" : built.error().toString());
    return built ? std::move(*built) : nullptr;
  }

  std::unique_ptr<metrics::TraceSource> trace_;
};

TEST_F(TraceReplay, StepHoldsTheLastSampleShiftedToSimulationStart) {
  auto m = replay("shop/web-0/app");
  auto at = [&](Duration d) { return m->usage(kSimStart + d, d); };
  EXPECT_EQ(m->usage(kSimStart - seconds(1), {}), Usage{});  // before the trace
  EXPECT_EQ(at(seconds(0)), (Usage{0.25, Bytes(100)}));
  EXPECT_EQ(at(seconds(299)), (Usage{0.25, Bytes(100)}));
  EXPECT_EQ(at(seconds(300)), (Usage{0.5, Bytes(200)}));
  EXPECT_EQ(at(seconds(899)), (Usage{0.5, Bytes(200)}));
  EXPECT_EQ(at(seconds(900)), (Usage{1, Bytes(300)}));
  EXPECT_EQ(at(hours(10)), (Usage{1, Bytes(300)}));  // the last sample holds
  EXPECT_FALSE(m->finished(kSimStart + hours(10), hours(10)));
}

TEST_F(TraceReplay, ContainersStayAlignedToTheTraceStart) {
  auto m = replay("shop/web-1/app");
  EXPECT_EQ(m->usage(kSimStart + seconds(59), {}), Usage{});
  EXPECT_EQ(m->usage(kSimStart + seconds(60), {}), (Usage{2, Bytes(4000)}));
}

TEST_F(TraceReplay, ExposesOriginalAndCurrentResources) {
  TraceReplayModel m(trace_->data().containers().at({"shop", "web-0", "app"}), trace_->span().first,
                     kSimStart);
  EXPECT_EQ(m.originalResources().cpuRequest, 250_m);
  EXPECT_EQ(m.originalResources().memoryRequest, 128_Mi);
  EXPECT_EQ(m.originalResources().cpuLimit, std::nullopt);
  EXPECT_EQ(m.resources(kSimStart + seconds(899)).cpuRequest, 250_m);
  EXPECT_EQ(m.resources(kSimStart + seconds(900)).cpuRequest, 500_m);
  EXPECT_EQ(m.resources(kSimStart + seconds(900)).cpuLimit, 1000_m);
  EXPECT_EQ(m.resources(kSimStart - seconds(1)), api::ResourceValues{});
}

TEST_F(TraceReplay, RejectsBadContainers) {
  auto fieldOf = [&](const UsageModelSpec& spec, const ReplaySource& source) {
    auto built = makeUsageModel(spec, Random(1), source);
    EXPECT_FALSE(built.has_value());
    return built ? std::string() : built.error().field;
  };
  const ReplaySource source{trace_.get(), kSimStart};
  EXPECT_EQ(fieldOf({"trace", {}, "shop/web-9/app"}, source), "container");
  EXPECT_EQ(fieldOf({"trace", {}, "shop/web-0"}, source), "container");
  EXPECT_EQ(fieldOf({"trace", {}, "shop//app"}, source), "container");
  EXPECT_EQ(fieldOf({"trace", {}, "shop/web-0/app"}, {}), "container");
  EXPECT_EQ(fieldOf({"trace", {{"speed", 2}}, "shop/web-0/app"}, source), "params.speed");
}

}  // namespace
}  // namespace attune::sim
