#include "metrics/trace/attune_csv_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
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
    "timestamp,namespace,workload_kind,workload,pod,container,cpu_usage_cores,"
    "memory_working_set_bytes,cpu_request,cpu_limit,memory_request,memory_limit";
constexpr std::int64_t kT0 = 1714521600;  // 2024-05-01T00:00:00Z
const ContainerId kApp{"shop", "web-7d9f-abcde", "app"};
const ContainerId kSidecar{"shop", "web-7d9f-abcde", "sidecar"};
const ContainerId kBatch{"batch", "nightly-28571-xyz", "main"};
const Range kAll = rawRange(unixTime(kT0), unixTime(kT0 + 3600));

std::unique_ptr<TraceSource> loadSmall() {
  auto source = TraceSource::load({dataDir() / "attune/small.csv"});
  EXPECT_TRUE(source.has_value()) << source.error().message;
  return source ? std::move(*source) : nullptr;
}

TEST(AttuneCsvReaderTest, ReadsUsageOfEveryContainer) {
  auto source = loadSmall();
  ASSERT_NE(source, nullptr);
  auto cpu = source->cpuUsage({}, kAll);
  ASSERT_TRUE(cpu.has_value());
  ASSERT_EQ(cpu->size(), 3u);  // ordered by ContainerId: batch first
  EXPECT_EQ((*cpu)[0].id, kBatch);
  EXPECT_EQ((*cpu)[1].id, kApp);
  ASSERT_EQ((*cpu)[1].points.size(), 3u);
  EXPECT_EQ((*cpu)[1].points[1].time, unixTime(kT0 + 300));  // written as Unix seconds
  EXPECT_DOUBLE_EQ((*cpu)[1].points[1].value, 0.3);
  EXPECT_EQ((*cpu)[2].id, kSidecar);
  EXPECT_EQ((*cpu)[2].points.size(), 2u);  // an empty cell is no sample
  auto memory = source->memoryWorkingSet({}, kAll);
  ASSERT_TRUE(memory.has_value());
  EXPECT_EQ((*memory)[2].points.size(), 3u);
  EXPECT_EQ((*memory)[0].points[1].value, 1073741824.0);
  EXPECT_EQ(source->span().first, unixTime(kT0));
  EXPECT_EQ(source->span().last, unixTime(kT0 + 600));
}

TEST(AttuneCsvReaderTest, ReadsRequestsLimitsAndOwners) {
  auto source = loadSmall();
  ASSERT_NE(source, nullptr);
  auto resources = source->resources(Scope{{"shop"}}, unixTime(kT0));
  ASSERT_TRUE(resources.has_value());
  ASSERT_EQ(resources->size(), 2u);
  const ContainerResourceValues& app = (*resources)[0];
  EXPECT_EQ(app.id, kApp);
  EXPECT_EQ(app.cpuRequest, 250_m);
  EXPECT_EQ(app.cpuLimit, 500_m);
  EXPECT_EQ(app.memoryRequest, 128_Mi);
  EXPECT_EQ(app.memoryLimit, 256_Mi);
  const ContainerResourceValues& sidecar = (*resources)[1];
  EXPECT_EQ(sidecar.cpuLimit, std::nullopt);  // empty = unset
  EXPECT_EQ(sidecar.memoryLimit, std::nullopt);
  auto owners = source->podOwners({}, unixTime(kT0));
  ASSERT_TRUE(owners.has_value());
  ASSERT_EQ(owners->size(), 2u);  // one per pod, not per container
  EXPECT_EQ((*owners)[0].workload, (api::WorkloadRef{"batch", "CronJob", "nightly"}));
  EXPECT_EQ((*owners)[1].pod, "web-7d9f-abcde");
  EXPECT_EQ((*owners)[1].workload, (api::WorkloadRef{"shop", "Deployment", "web"}));
}

TEST(AttuneCsvReaderTest, ReadsTheOptionalColumns) {
  auto source = loadSmall();
  ASSERT_NE(source, nullptr);
  auto psi = source->cpuPressureWaiting({}, kAll);
  ASSERT_TRUE(psi.has_value());
  ASSERT_EQ(psi->size(), 1u);
  EXPECT_EQ((*psi)[0].id, kApp);
  EXPECT_DOUBLE_EQ((*psi)[0].points[2].value, 0.03);
  auto throttle = source->cpuThrottleRatio(Scope{{"batch"}}, kAll);
  ASSERT_EQ(throttle->size(), 1u);
  EXPECT_DOUBLE_EQ((*throttle)[0].points[1].value, 0.4);
  auto ooms = source->oomKills({}, kAll);
  ASSERT_TRUE(ooms.has_value());
  ASSERT_EQ(ooms->size(), 1u);
  EXPECT_EQ((*ooms)[0].id, kBatch);
  EXPECT_EQ((*ooms)[0].time, unixTime(kT0 + 300));
  EXPECT_EQ((*ooms)[0].memoryAtKill, 1_Gi);
  auto restarts = source->restartCounts({}, unixTime(kT0 + 299));
  ASSERT_EQ(restarts->size(), 3u);
  EXPECT_EQ((*restarts)[0].restarts, 0);
  restarts = source->restartCounts({}, unixTime(kT0 + 300));
  EXPECT_EQ((*restarts)[0].restarts, 1);
}

TEST(AttuneCsvReaderTest, OptionalColumnsMayBeAbsentAndColumnsInAnyOrder) {
  const std::string csv =
      "namespace,timestamp,workload_kind,workload,pod,container,cpu_usage_cores,"
      "memory_working_set_bytes,cpu_request,cpu_limit,memory_request,memory_limit\n"
      "ns,1714521600,Pod,p,p,c,0.5,nan,,,,\n";
  const auto dir = testing::freshDir();
  auto source = TraceSource::load({testing::writeFile(dir, "t.csv", csv)});
  ASSERT_TRUE(source.has_value()) << source.error().message;
  auto cpu = (*source)->cpuUsage({}, kAll);
  ASSERT_EQ(cpu->size(), 1u);
  EXPECT_EQ((*cpu)[0].id, (ContainerId{"ns", "p", "c"}));
  EXPECT_TRUE((*source)->memoryWorkingSet({}, kAll)->empty());  // NaN is dropped
  EXPECT_TRUE((*source)->cpuPressureWaiting({}, kAll)->empty());
  EXPECT_TRUE((*source)->oomKills({}, kAll)->empty());
  EXPECT_TRUE((*source)->restartCounts({}, unixTime(kT0))->empty());
}

struct BadCsv {
  std::string name;
  std::string header;
  std::string row;
  std::string message;  // the start of the error message, after the scratch directory
};

class AttuneCsvErrorTest : public ::testing::TestWithParam<BadCsv> {};

TEST_P(AttuneCsvErrorTest, NamesFileLineAndColumn) {
  const BadCsv& bad = GetParam();
  const auto extraColumns = std::count(bad.header.begin(), bad.header.end(), ',') - 11;
  const std::string good = "1714521600,ns,Deployment,web,web-1,app,0.5,1000,100m,,64Mi," +
                           std::string(std::max<std::ptrdiff_t>(extraColumns, 0), ',');
  const Error error = loadError("t.csv", bad.header + "\n" + good + "\n" + bad.row + "\n");
  EXPECT_EQ(error.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(error.message.starts_with(bad.message)) << error.message;
}

const std::string kFull = std::string(kHeader);
const std::string kExtended =
    kFull + ",psi_cpu_waiting_rate,cpu_throttle_ratio,restarts,oom_killed";

INSTANTIATE_TEST_SUITE_P(
    Errors, AttuneCsvErrorTest,
    ::testing::Values(
        BadCsv{"FieldCount", kFull, "1714521600,ns,Deployment",
               "t.csv:3: expected 12 fields, got 3"},
        BadCsv{
            "Timestamp", kFull, "yesterday,ns,Deployment,web,web-1,app,0.5,1000,,,,",
            "t.csv:3: timestamp: invalid timestamp \"yesterday\": want RFC 3339 or Unix seconds"},
        BadCsv{"EmptyTimestamp", kFull, ",ns,Deployment,web,web-1,app,0.5,1000,,,,",
               "t.csv:3: timestamp: must not be empty"},
        BadCsv{"EmptyName", kFull, "1714521600,ns,Deployment,web,web-1,,0.5,1000,,,,",
               "t.csv:3: container: must not be empty"},
        BadCsv{"Number", kFull, "1714521600,ns,Deployment,web,web-1,app,half,1000,,,,",
               "t.csv:3: cpu_usage_cores: not a number: \"half\""},
        BadCsv{"Negative", kFull, "1714521600,ns,Deployment,web,web-1,app,0.5,-1,,,,",
               "t.csv:3: memory_working_set_bytes: negative value \"-1\""},
        BadCsv{"CpuQuantity", kFull, "1714521600,ns,Deployment,web,web-1,app,0.5,1,lots,,,",
               "t.csv:3: cpu_request: invalid quantity \"lots\""},
        BadCsv{"MemoryQuantity", kFull, "1714521600,ns,Deployment,web,web-1,app,0.5,1,,,,-1Gi",
               "t.csv:3: memory_limit: invalid memory quantity \"-1Gi\": must not be negative"},
        BadCsv{"Owner", kFull, "1714521600,ns,StatefulSet,db,web-1,app,0.5,1,,,,",
               "t.csv:3: workload: pod ns/web-1 is owned by ns/Deployment/web, not "
               "ns/StatefulSet/db"},
        BadCsv{"Throttle", kExtended, "1714521600,ns,Deployment,web,web-1,app,0.5,1,,,,,,1.5,,",
               "t.csv:3: cpu_throttle_ratio: must be in [0, 1]"},
        BadCsv{"Restarts", kExtended, "1714521600,ns,Deployment,web,web-1,app,0.5,1,,,,,,,two,",
               "t.csv:3: restarts: not a non-negative integer: \"two\""},
        BadCsv{"OomFlag", kExtended, "1714521600,ns,Deployment,web,web-1,app,0.5,1,,,,,,,,yes",
               "t.csv:3: oom_killed: want 0, 1, true or false, got \"yes\""},
        BadCsv{"OomWithoutMemory", kExtended,
               "1714521600,ns,Deployment,web,web-1,app,0.5,,,,,,,,,1",
               "t.csv:3: oom_killed: needs memory_working_set_bytes in the same row"},
        BadCsv{"UnknownColumn", kFull + ",cpu_usage", "", "t.csv:1: unknown column \"cpu_usage\""},
        BadCsv{"DuplicateColumn", kFull + ",pod", "", "t.csv:1: column pod appears twice"},
        BadCsv{"MissingColumn", "timestamp,namespace,workload_kind,workload,pod,container", "",
               "t.csv:1: missing column cpu_usage_cores"}),
    [](const ::testing::TestParamInfo<BadCsv>& info) { return info.param.name; });

}  // namespace
}  // namespace attune::metrics
