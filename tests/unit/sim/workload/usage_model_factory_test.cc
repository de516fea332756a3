#include "sim/workload/usage_model_factory.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace attune::sim {
namespace {

struct BadSpec {
  std::string name;
  UsageModelSpec spec;
  std::string field;    // the field the error must name
  std::string message;  // a fragment of its message
};

class RejectsInvalidSpec : public ::testing::TestWithParam<BadSpec> {};

TEST_P(RejectsInvalidSpec, NamesTheBadField) {
  const BadSpec& bad = GetParam();
  auto built = makeUsageModel(bad.spec, Random(7));
  ASSERT_FALSE(built.has_value());
  EXPECT_EQ(built.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(built.error().field, bad.field);
  EXPECT_NE(built.error().message.find(bad.message), std::string::npos) << built.error().message;
}

const double kNan = std::numeric_limits<double>::quiet_NaN();

INSTANTIATE_TEST_SUITE_P(
    Specs, RejectsInvalidSpec,
    ::testing::Values(
        BadSpec{"UnknownKind", {"sine", {}, {}}, "kind", "unknown usage model kind \"sine\""},
        BadSpec{
            "MissingRequired", {"steady", {{"memoryBytes", 1}}, {}}, "params.cpuCores", "required"},
        BadSpec{"UnknownParam",
                {"steady", {{"cpuCores", 1}, {"memoryBytes", 1}, {"cpu", 1}}, {}},
                "params.cpu",
                "unknown parameter"},
        BadSpec{"Negative",
                {"steady", {{"cpuCores", -1}, {"memoryBytes", 1}}, {}},
                "params.cpuCores",
                ">= 0"},
        BadSpec{"NotFinite",
                {"steady", {{"cpuCores", 1}, {"memoryBytes", kNan}}, {}},
                "params.memoryBytes",
                "finite"},
        BadSpec{"Amplitude",
                {"diurnal", {{"cpuCores", 1}, {"memoryBytes", 1}, {"amplitude", 1.5}}, {}},
                "params.amplitude",
                "[0, 1]"},
        BadSpec{"PeakHour",
                {"diurnal", {{"cpuCores", 1}, {"memoryBytes", 1}, {"peakHour", 24}}, {}},
                "params.peakHour",
                "[0, 24)"},
        BadSpec{"SpikeProbability",
                {"bursty", {{"cpuCores", 1}, {"memoryBytes", 1}, {"spikeProbability", 2}}, {}},
                "params.spikeProbability",
                "[0, 1]"},
        BadSpec{"SpikeFactor",
                {"bursty", {{"cpuCores", 1}, {"memoryBytes", 1}, {"spikeFactor", 0.5}}, {}},
                "params.spikeFactor",
                ">= 1"},
        BadSpec{"LeakMissing",
                {"memory-leak", {{"cpuCores", 1}, {"memoryBytes", 1}}, {}},
                "params.leakBytesPerHour",
                "required"},
        BadSpec{"JvmFloor",
                {"jvm", {{"cpuCores", 1}, {"heapBytes", 100}, {"floorBytes", 100}}, {}},
                "params.floorBytes",
                "< heapBytes"},
        BadSpec{"JvmGcDuration",
                {"jvm",
                 {{"cpuCores", 1},
                  {"heapBytes", 100},
                  {"floorBytes", 10},
                  {"gcPeriodSeconds", 10},
                  {"gcDurationSeconds", 10}},
                 {}},
                "params.gcDurationSeconds",
                "< gcPeriodSeconds"},
        BadSpec{"JvmPeriod",
                {"jvm",
                 {{"cpuCores", 1}, {"heapBytes", 100}, {"floorBytes", 10}, {"gcPeriodSeconds", 0}},
                 {}},
                "params.gcPeriodSeconds",
                "(0, 1e9]"},
        BadSpec{"BatchDuration",
                {"batch", {{"cpuCores", 1}, {"memoryBytes", 1}, {"durationSeconds", 0}}, {}},
                "params.durationSeconds",
                "(0, 1e9]"},
        BadSpec{"BatchDurationTooLong",
                {"batch", {{"cpuCores", 1}, {"memoryBytes", 1}, {"durationSeconds", 1e12}}, {}},
                "params.durationSeconds",
                "(0, 1e9]"},
        BadSpec{"ContainerOnSynthetic",
                {"steady", {{"cpuCores", 1}, {"memoryBytes", 1}}, "ns/pod/c"},
                "container",
                "only kind \"trace\""}),
    [](const ::testing::TestParamInfo<BadSpec>& info) { return info.param.name; });

TEST(MakeUsageModel, DefaultsMakeEveryKindFromItsRequiredParameters) {
  const UsageModelSpec specs[] = {
      {"steady", {{"cpuCores", 1}, {"memoryBytes", 1e6}}, {}},
      {"diurnal", {{"cpuCores", 1}, {"memoryBytes", 1e6}}, {}},
      {"bursty", {{"cpuCores", 1}, {"memoryBytes", 1e6}}, {}},
      {"memory-leak", {{"cpuCores", 1}, {"memoryBytes", 1e6}, {"leakBytesPerHour", 1e3}}, {}},
      {"jvm", {{"cpuCores", 1}, {"heapBytes", 1e6}, {"floorBytes", 1e5}}, {}},
      {"batch", {{"cpuCores", 1}, {"memoryBytes", 1e6}, {"durationSeconds", 60}}, {}},
  };
  for (const UsageModelSpec& spec : specs) {
    auto built = makeUsageModel(spec, Random(7));
    ASSERT_TRUE(built.has_value()) << spec.kind << ": " << built.error().toString();
    const Usage u = (*built)->usage(Time{}, Duration::zero());
    EXPECT_GE(u.cpuCores, 0) << spec.kind;
    EXPECT_GT(u.memory.value(), 0) << spec.kind;
  }
}

}  // namespace
}  // namespace attune::sim
