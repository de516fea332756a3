// attune::stats against a naive exact baseline, measured in the same run:
//  (1) ingest throughput, samples/s on one core (a sample = CPU, PSI and memory of one
//      container at one time); target >= 20 M samples/s;
//  (2) bytes per container at 7 days of 1-minute samples; target <= 4 KiB per container and
//      <= 512 MiB for 100,000 containers. `--containers=N` sets how many containers are built
//      (default 2,000, extrapolated linearly to 100,000 — statistics are per container and
//      share nothing; `--containers=100000` measures the target directly, in about a minute).
//      Both the accounted bytes (bytesUsed) and the process's resident-set growth are printed.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "stats/container_stats.h"
#include "stats/store.h"

namespace {

using attune::Time;
using attune::stats::ContainerStats;
using attune::stats::Sample;
using attune::stats::StatsConfig;

constexpr int kIngestContainers = 64;
constexpr int kMinutes = 7 * 1440;
constexpr int kDefaultMemContainers = 2000;
constexpr int kTargetContainers = 100000;
constexpr const char* kOurs = "BM_Ingest_Attune";
constexpr const char* kBaseline = "BM_Ingest_Naive";

const Time kStart = Time(std::chrono::seconds(1704067200));

// Realistic usage: diurnal CPU with lognormal noise (sigma 0.4) and rare spikes, memory slowly
// varying within a few percent.
Sample sampleAt(std::mt19937_64& rng, int container, int minute) {
  static thread_local std::lognormal_distribution<double> noise(0.0, 0.4);
  static thread_local std::normal_distribution<double> small(0.0, 0.01);
  const double day = 2 * M_PI * minute / 1440.0;
  double cpu = (0.05 + 0.01 * (container % 7)) * (1.2 + std::sin(day)) * noise(rng);
  if (rng() % 1000 == 0) cpu *= 15;
  const double mem = (2e8 + 1e7 * (container % 11)) * (1 + 0.03 * std::sin(day) + small(rng));
  return Sample{.time = kStart + std::chrono::minutes(minute),
                .cpuCores = cpu,
                .psiCpuWaitingRate = 0.05 * noise(rng),
                .memoryBytes = mem};
}

// Time-ordered samples: every minute, one per container.
const std::vector<Sample>& ingestStream() {
  static const std::vector<Sample> stream = [] {
    std::mt19937_64 rng(1);
    std::vector<Sample> out;
    out.reserve(std::size_t{kIngestContainers} * kMinutes);
    for (int m = 0; m < kMinutes; ++m) {
      for (int c = 0; c < kIngestContainers; ++c) out.push_back(sampleAt(rng, c, m));
    }
    return out;
  }();
  return stream;
}

// The naive exact baseline: every (time, PSI-adjusted CPU, memory) kept. Its ingest only
// appends to a vector (percentiles would be computed at query time by sorting), so it is a
// lower bound on ingest cost, not a like-for-like statistics engine.
struct NaiveContainer {
  struct Point {
    Time t;
    double cpu;
    double mem;
  };
  std::vector<Point> points;
  void add(const Sample& s) {
    points.push_back({s.time, s.cpuCores * (1 + s.psiCpuWaitingRate.value_or(0)), s.memoryBytes});
  }
  std::size_t bytesUsed() const { return sizeof(*this) + points.capacity() * sizeof(Point); }
};

void BM_Ingest_Attune(benchmark::State& state) {
  const auto& stream = ingestStream();
  StatsConfig config;
  for (auto _ : state) {
    std::vector<ContainerStats> containers(kIngestContainers, ContainerStats(config));
    for (std::size_t i = 0; i < stream.size(); ++i) {
      containers[i % kIngestContainers].add(stream[i]);
    }
    benchmark::DoNotOptimize(containers.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
}

void BM_Ingest_Naive(benchmark::State& state) {
  const auto& stream = ingestStream();
  for (auto _ : state) {
    std::vector<NaiveContainer> containers(kIngestContainers);
    for (std::size_t i = 0; i < stream.size(); ++i)
      containers[i % kIngestContainers].add(stream[i]);
    benchmark::DoNotOptimize(containers.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * stream.size()));
}

BENCHMARK(BM_Ingest_Attune)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_Ingest_Naive)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

// Remembers each benchmark's mean real and CPU time per iteration for the ratio.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      const double unit = benchmark::GetTimeUnitMultiplier(run.time_unit);
      real_[run.run_name.function_name] = run.GetAdjustedRealTime() / unit;
      cpu_[run.run_name.function_name] = run.GetAdjustedCPUTime() / unit;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double realSeconds(const std::string& name) const { return get(real_, name); }
  double cpuSeconds(const std::string& name) const { return get(cpu_, name); }

 private:
  static double get(const std::map<std::string, double>& m, const std::string& name) {
    auto it = m.find(name);
    return it == m.end() ? 0 : it->second;
  }
  std::map<std::string, double> real_;
  std::map<std::string, double> cpu_;
};

void printIngest(const RatioReporter& r) {
  const double samples = static_cast<double>(ingestStream().size());
  for (const bool cpu : {false, true}) {
    const double ours = cpu ? r.cpuSeconds(kOurs) : r.realSeconds(kOurs);
    const double naive = cpu ? r.cpuSeconds(kBaseline) : r.realSeconds(kBaseline);
    if (ours <= 0 || naive <= 0) continue;
    std::printf(
        "ingest (%s time): %.1f M samples/s (%.2fx the naive baseline at %.1f M samples/s, "
        "which only appends each sample to a vector and computes no statistics; "
        "target >= 20)\n",
        cpu ? "CPU" : "wall-clock", samples / ours / 1e6, naive / ours, samples / naive / 1e6);
  }
}

// Resident set size of this process in bytes (Linux /proc/self/statm), 0 if unreadable.
std::size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

void printMemory(int containers) {
  StatsConfig config;
  const int naiveContainers = std::max(1, containers / 100);
  const std::size_t rssBefore = residentBytes();
  std::vector<ContainerStats> ours(static_cast<std::size_t>(containers), ContainerStats(config));
  std::mt19937_64 rng(2);
  // Container by container, as a scan feeds them (each series arrives whole).
  for (int c = 0; c < containers; ++c) {
    for (int m = 0; m < kMinutes; ++m) ours[static_cast<std::size_t>(c)].add(sampleAt(rng, c, m));
  }
  const std::size_t rssOurs = residentBytes() - rssBefore;
  std::vector<NaiveContainer> naive(static_cast<std::size_t>(naiveContainers));
  for (int c = 0; c < naiveContainers; ++c) {
    for (int m = 0; m < kMinutes; ++m) naive[static_cast<std::size_t>(c)].add(sampleAt(rng, c, m));
  }
  std::size_t oursBytes = 0, worst = 0, naiveBytes = 0;
  for (const auto& c : ours) {
    oursBytes += c.bytesUsed();
    worst = std::max(worst, c.bytesUsed());
  }
  for (const auto& c : naive) naiveBytes += c.bytesUsed();
  const double perContainer = static_cast<double>(oursBytes) / containers;
  const double residentPer = static_cast<double>(rssOurs) / containers;
  const double naivePer = static_cast<double>(naiveBytes) / naiveContainers;
  std::printf(
      "bytes/container (7 days x 1-minute, %d containers built): %.0f accounted, worst %zu, "
      "%.0f resident (naive %.0f, ratio %.1fx smaller; target <= 4096)\n",
      containers, perContainer, worst, residentPer, naivePer, naivePer / residentPer);
  if (containers >= kTargetContainers) {
    std::printf(
        "resident for %d containers: %.1f MiB measured (naive %.1f MiB; target <= 512 MiB)\n",
        containers, static_cast<double>(rssOurs) / (1 << 20), naivePer * containers / (1 << 20));
  } else {
    std::printf(
        "extrapolated to %d containers: %.1f MiB resident (naive %.1f MiB; target <= 512 MiB)\n",
        kTargetContainers, residentPer * kTargetContainers / (1 << 20),
        naivePer * kTargetContainers / (1 << 20));
  }
}

// Removes `--containers=N` from argv (Google Benchmark rejects flags it does not know).
int takeContainersFlag(int& argc, char** argv) {
  int containers = kDefaultMemContainers;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("--containers=")) {
      containers = std::max(1, std::atoi(arg.c_str() + 13));
    } else {
      argv[out++] = argv[i];
    }
  }
  argc = out;
  return containers;
}

}  // namespace

int main(int argc, char** argv) {
  const int containers = takeContainersFlag(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ingestStream();  // before any timing
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printIngest(reporter);
  printMemory(containers);
  benchmark::Shutdown();
  return 0;
}
