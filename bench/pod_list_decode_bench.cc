// Decoding a LIST of 10,000 realistic pods (what an informer's initial list or a relist reads):
// api::decodePodList (simdjson On Demand into typed Pods) against nlohmann::json::parse of the
// same bytes (a DOM, no typing), measured in the same run. Prints MB/s for both and the
// machine-independent ratio. Target (Release, one core): >= 200 MB/s and >= 3x nlohmann.
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "api/k8s/decode.h"
#include "bench/support/mean_time_reporter.h"
#include "support/pod_json.h"

namespace {

constexpr int kPods = 10000;
constexpr const char* kOurs = "BM_DecodePodList_Attune";
constexpr const char* kBaseline = "BM_ParsePodList_Nlohmann";

const std::string& podListJson() {
  static const std::string json = attune::testing::realisticPodListJson(kPods);
  return json;
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "pod_list_decode_bench: %s\n", why.c_str());
  std::abort();
}

// Aborts unless `list` is a successful decode of all kPods pods.
void verify(const attune::Result<attune::api::List<attune::api::Pod>>& list) {
  if (!list) die("decodePodList failed: " + list.error().toString());
  if (list->items.size() != static_cast<std::size_t>(kPods)) {
    die("decodePodList produced " + std::to_string(list->items.size()) + " pods");
  }
}

void BM_DecodePodList_Attune(benchmark::State& state) {
  const std::string& json = podListJson();
  for (auto _ : state) {
    auto list = attune::api::decodePodList(json);
    verify(list);
    benchmark::DoNotOptimize(list);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * json.size()));
  state.counters["pods"] = kPods;
}

void BM_ParsePodList_Nlohmann(benchmark::State& state) {
  const std::string& json = podListJson();
  for (auto _ : state) {
    nlohmann::json doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded() || doc["items"].size() != static_cast<std::size_t>(kPods)) {
      die("nlohmann::json::parse failed");
    }
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * json.size()));
  state.counters["pods"] = kPods;
}

BENCHMARK(BM_DecodePodList_Attune)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
// One nlohmann parse takes seconds; a fixed count keeps the run short yet averages some noise.
BENCHMARK(BM_ParsePodList_Nlohmann)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

// The decode figure against the nlohmann baseline.
void printSummary(const attune::bench::MeanTimeReporter& reporter, std::size_t bytes) {
  const auto ours = reporter.meanSeconds(kOurs);
  const auto baseline = reporter.meanSeconds(kBaseline);
  if (!ours || !baseline) return;
  const double mb = static_cast<double>(bytes) / (1024.0 * 1024.0);
  std::printf(
      "pod list: %d pods, %.1f MiB (%.1f KiB/pod)\n"
      "decodePodList: %.1f MiB/s   nlohmann::json::parse: %.1f MiB/s\n"
      "ratio vs nlohmann: %.1fx\n",
      kPods, mb, mb * 1024.0 / kPods, mb / *ours, mb / *baseline, *baseline / *ours);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  verify(attune::api::decodePodList(podListJson()));  // before any timing
  attune::bench::MeanTimeReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  printSummary(reporter, podListJson().size());
  benchmark::Shutdown();
  return 0;
}
