// A Google Benchmark console reporter that also remembers each benchmark's mean real time per
// iteration, so a bench binary can print its figure against a baseline measured in the same run.
#pragma once

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attune::bench {

class MeanTimeReporter : public benchmark::ConsoleReporter {
 public:
  MeanTimeReporter() : ConsoleReporter(isatty(fileno(stdout)) ? OO_Defaults : OO_Tabular) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      Total& t = totals_[run.run_name.function_name];
      t.seconds += run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
      t.runs += 1;
    }
    ConsoleReporter::ReportRuns(runs);
  }

  // Mean real seconds per iteration of the benchmark function `name` (e.g. "BM_Decode"), or
  // nullopt when it did not run.
  std::optional<double> meanSeconds(const std::string& name) const {
    auto it = totals_.find(name);
    if (it == totals_.end() || it->second.runs == 0) return std::nullopt;
    return it->second.seconds / it->second.runs;
  }

 private:
  struct Total {
    double seconds = 0;
    int runs = 0;
  };
  std::map<std::string, Total> totals_;
};

}  // namespace attune::bench
