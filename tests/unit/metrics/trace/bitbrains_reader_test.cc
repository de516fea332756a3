#include "metrics/trace/bitbrains_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "metrics/trace/trace_source.h"
#include "trace_testing.h"

namespace attune::metrics {
namespace {

using namespace attune::literals;
using testing::dataDir;
using testing::loadError;
using testing::rawRange;
using testing::unixTime;

constexpr std::string_view kHeader =
    "Timestamp [ms];\tCPU cores;\tCPU capacity provisioned [MHZ];\tCPU usage [MHZ];\t"
    "CPU usage [%];\tMemory capacity provisioned [KB];\tMemory usage [KB];\t"
    "Disk read throughput [KB/s];\tDisk write throughput [KB/s];\t"
    "Network received throughput [KB/s];\tNetwork transmitted throughput [KB/s]\n";
constexpr std::string_view kGoodRow =
    "1372629804;\t2;\t5200.0;\t1300.0;\t25.0;\t4194304.0;\t1048576.0;\t0.0;\t0.0;\t0.0;\t0.0\n";

const ContainerId kVm1{"bitbrains", "vm-1-0", "main"};
const ContainerId kVm2{"bitbrains", "vm-2-0", "main"};
const Range kAll = rawRange(unixTime(0), unixTime(2'000'000'000));

std::unique_ptr<TraceSource> loadSample() {
  auto source = TraceSource::load({dataDir() / "bitbrains"});
  EXPECT_TRUE(source.has_value()) << source.error().message;
  return source ? std::move(*source) : nullptr;
}

std::vector<double> values(const ContainerSeries& series) {
  std::vector<double> out;
  for (const auto& p : series.points) out.push_back(p.value);
  return out;
}

TEST(BitbrainsReaderTest, VmIdIsTheFileNameWithoutExtensions) {
  EXPECT_EQ(bitbrainsVmId("traces/7.csv.gz"), "7");
  EXPECT_EQ(bitbrainsVmId("7.csv"), "7");
}

TEST(BitbrainsReaderTest, ReadsPlainAndGzippedFilesOfADirectoryAsOneWorkloadPerVm) {
  auto source = loadSample();
  ASSERT_NE(source, nullptr);
  auto owners = source->podOwners({}, unixTime(1372629804));
  ASSERT_TRUE(owners.has_value());
  ASSERT_EQ(owners->size(), 2u);
  EXPECT_EQ((*owners)[0].pod, "vm-1-0");
  EXPECT_EQ((*owners)[0].workload, (api::WorkloadRef{"bitbrains", "Deployment", "vm-1"}));
  EXPECT_EQ((*owners)[1].workload, (api::WorkloadRef{"bitbrains", "Deployment", "vm-2"}));
}

TEST(BitbrainsReaderTest, ConvertsMhzToCoresAndKilobytesToBytes) {
  auto source = loadSample();
  ASSERT_NE(source, nullptr);
  auto cpu = source->cpuUsage({}, kAll);
  ASSERT_TRUE(cpu.has_value());
  ASSERT_EQ(cpu->size(), 2u);
  EXPECT_EQ((*cpu)[0].id, kVm1);
  // usage / (capacity / cores): 1300 / (5200 / 2) = 0.5
  EXPECT_EQ(values((*cpu)[0]), (std::vector<double>{0.5, 1.0, 0.2}));
  EXPECT_EQ((*cpu)[1].id, kVm2);  // from 2.csv.gz
  EXPECT_EQ(values((*cpu)[1]), (std::vector<double>{0.25, 0.5}));
  auto memory = source->memoryWorkingSet({}, kAll);
  ASSERT_TRUE(memory.has_value());
  EXPECT_EQ(values((*memory)[0]), (std::vector<double>{1 << 30, 2.0 * (1 << 30), 3.0 * (1 << 30)}));
  EXPECT_EQ((*memory)[0].points[0].time, unixTime(1372629804));
}

TEST(BitbrainsReaderTest, SkipsAndCountsRowsWithZeroCoresOrCapacity) {
  auto source = loadSample();
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->skippedRows(), 2);  // 1.csv: one row with 0 cores, one with 0 MHz capacity
  EXPECT_EQ(source->span().last, unixTime(1372630704));
}

TEST(BitbrainsReaderTest, ProvisionedCapacityIsTheRequestAndMayChange) {
  auto source = loadSample();
  ASSERT_NE(source, nullptr);
  auto before = source->resources(Scope{{"bitbrains"}}, unixTime(1372630703));
  ASSERT_TRUE(before.has_value());
  ASSERT_EQ(before->size(), 2u);
  EXPECT_EQ((*before)[0].cpuRequest, 2000_m);
  EXPECT_EQ((*before)[0].memoryRequest, 4_Gi);
  EXPECT_EQ((*before)[0].cpuLimit, std::nullopt);
  EXPECT_EQ((*before)[0].memoryLimit, std::nullopt);
  EXPECT_EQ((*before)[1].cpuRequest, 1000_m);
  EXPECT_EQ((*before)[1].memoryRequest, 2_Gi);
  auto after = source->resources({}, unixTime(1372630704));
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ((*after)[0].memoryRequest, 8_Gi);
}

TEST(BitbrainsReaderTest, UsesTheConfiguredNamespace) {
  auto source = TraceSource::load({dataDir() / "bitbrains/1.csv"}, {.bitbrainsNamespace = "vms"});
  ASSERT_TRUE(source.has_value());
  auto cpu = (*source)->cpuUsage(Scope{{"vms"}}, kAll);
  ASSERT_EQ(cpu->size(), 1u);
  EXPECT_EQ((*cpu)[0].id, (ContainerId{"vms", "vm-1-0", "main"}));
}

TEST(BitbrainsReaderTest, ShortRowNamesFileAndLine) {
  const Error error =
      loadError("7.csv", std::string(kHeader) + std::string(kGoodRow) + "1;\t2;\t3\n");
  EXPECT_EQ(error.code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(error.message, "7.csv:3: expected 11 fields, got 3");
}

TEST(BitbrainsReaderTest, BadNumberNamesFileLineAndColumn) {
  const Error error = loadError(
      "7.csv.gz",
      std::string(kHeader) + "1372629804;\t2;\t5200.0;\tlots;\t25.0;\t1.0;\t1.0;\t0;\t0;\t0;\t0\n");
  EXPECT_EQ(error.message, "7.csv.gz:2: CPU usage [MHZ]: not a number: \"lots\"");
}

TEST(BitbrainsReaderTest, BadTimestampAndNegativeValuesAreErrors) {
  EXPECT_EQ(loadError("7.csv", std::string(kHeader) +
                                   "soon;\t2;\t5200.0;\t1.0;\t25.0;\t1.0;\t1.0;\t0;\t0;\t0;\t0\n")
                .message,
            "7.csv:2: Timestamp: invalid timestamp \"soon\": want RFC 3339 or Unix seconds");
  EXPECT_EQ(loadError("7.csv", std::string(kHeader) +
                                   "1;\t2;\t5200.0;\t1.0;\t25.0;\t1.0;\t-1.0;\t0;\t0;\t0;\t0\n")
                .message,
            "7.csv:2: Memory usage [KB]: negative value \"-1.0\"");
}

TEST(BitbrainsReaderTest, UnrecognisedHeaderIsAnError) {
  const Error error = loadError("7.csv", "time;cpu\n1;2\n");
  EXPECT_TRUE(error.message.starts_with("7.csv:1: unrecognised header")) << error.message;
}

TEST(BitbrainsReaderTest, AFileOfOnlyUnusableRowsLeavesNoTrace) {
  const Error error = loadError(
      "7.csv", std::string(kHeader) + "1;\t0;\t0.0;\t0.0;\t0.0;\t0.0;\t0.0;\t0;\t0;\t0;\t0\n");
  EXPECT_EQ(error.code, ErrorCode::kInvalidArgument);
  EXPECT_NE(error.message.find("no usable rows (1 skipped)"), std::string::npos) << error.message;
}

}  // namespace
}  // namespace attune::metrics
