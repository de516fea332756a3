// The backtest's speed on a trace: `attune backtest --trace DIR --strategy none attune vpa krr
// cruisekube --days 30`, the trace loaded once.
//
// The figure: the five runs one after the other on one thread (--jobs 1), in wall seconds and in
// CPU seconds of the process (what they cost on one core whatever else the machine runs), with
// each run's share and the rate in strategy-days per CPU second. Target: <= 300 s on one core
// for 30 days (run it under `taskset -c 0`); with --days below 30 the 30-day time is
// extrapolated from the rate and labelled so.
//
// Baseline, measured in the same run: the `none` run, the simulated cluster without an
// operator; the five runs are given as a multiple of it (what the controllers add to the
// simulator). Then the same runs at once on threads (--jobs N): the speed-up over the sequential
// runs, and the two JSON reports compared byte for byte.
//
// Flags: --trace=DIR (required; e.g. ../shared/traces/bitbrains-rnd-2013-7), --days=N (default
// 30), --jobs=N (default: the hardware threads the process may run on), --only=sequential|parallel
// (one of the two, no speed-up).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/simulate_run.h"
#include "core/clock.h"
#include "core/clock_cpu.h"
#include "report/simulation_report.h"

namespace {

using namespace attune;

constexpr double kTargetSeconds = 300;  // 30 days, five strategies, one core
constexpr double kTargetDays = 30;

struct BenchOptions {
  std::string trace;
  double days = 30;
  unsigned jobs = 0;
  std::string only;
};

bool parse(int argc, char** argv, BenchOptions& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const auto value = [&](std::string_view flag) -> const char* {
      return arg.starts_with(flag) ? argv[i] + flag.size() : nullptr;
    };
    if (const char* v = value("--trace=")) {
      o.trace = v;
    } else if (const char* v = value("--days=")) {
      o.days = std::atof(v);
    } else if (const char* v = value("--jobs=")) {
      o.jobs = static_cast<unsigned>(std::atoi(v));
    } else if (const char* v = value("--only=")) {
      o.only = v;
    } else {
      std::fprintf(stderr, "backtest_bench: unknown argument %s\n", argv[i]);
      return false;
    }
  }
  if (o.trace.empty() || o.days <= 0 ||
      (!o.only.empty() && o.only != "sequential" && o.only != "parallel")) {
    std::fprintf(stderr,
                 "usage: backtest_bench --trace=DIR [--days=30] [--jobs=N] "
                 "[--only=sequential|parallel]\n");
    return false;
  }
  return true;
}

// Wall and CPU seconds.
struct Cost {
  double wall = 0;
  double cpu = 0;
};

// One backtest of every strategy: its JSON report, its cost, and (one run after the other only)
// each run's cost, from the first progress line of one run to that of the next.
struct Timed {
  std::string json;
  Cost total;
  std::vector<std::pair<std::string, Cost>> runs;
};

Timed backtest(cli::SimulateRequest request, unsigned jobs, Clock& wall) {
  request.jobs = jobs;
  Timed out;
  const Time began = wall.now();
  const double cpuBegan = processCpuSeconds();
  const auto since = [&] {
    return Cost{std::chrono::duration<double>(wall.now() - began).count(),
                processCpuSeconds() - cpuBegan};
  };
  std::vector<std::pair<std::string, Cost>> starts;  // run name, when its first line came
  cli::SimulateProgress progress;
  if (jobs == 1) {
    progress = [&](const std::string& line) {
      const std::string run = line.substr(0, line.find(": day "));
      if (starts.empty() || starts.back().first != run) starts.emplace_back(run, since());
    };
  }
  auto report = cli::runSimulate(request, progress);
  out.total = since();
  if (!report) {
    std::fprintf(stderr, "backtest_bench: %s\n", report.error().toString().c_str());
    std::exit(1);
  }
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const Cost next = i + 1 < starts.size() ? starts[i + 1].second : out.total;
    const Cost from = i == 0 ? Cost{} : starts[i].second;  // the first run includes its setup
    out.runs.emplace_back(starts[i].first, Cost{next.wall - from.wall, next.cpu - from.cpu});
  }
  out.json = report::renderSimulationJson(*report);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  BenchOptions o;
  if (!parse(argc, argv, o)) return 2;
  SystemClock wall;
  const Time began = wall.now();
  auto scenario = cli::scenarioFromTrace(o.trace, std::nullopt);
  if (!scenario) {
    std::fprintf(stderr, "backtest_bench: %s: %s\n", o.trace.c_str(),
                 scenario.error().toString().c_str());
    return 1;
  }
  const double loadSeconds = std::chrono::duration<double>(wall.now() - began).count();
  cli::SimulateRequest request{.scenario = std::move(*scenario)};
  request.scenario.duration =
      std::chrono::duration_cast<Duration>(std::chrono::duration<double>(o.days * 86400.0));
  request.strategies = {"none", "attune", "vpa", "krr", "cruisekube"};
  const double strategyDays = o.days * static_cast<double>(request.strategies.size());

  std::printf("backtest_bench: %s, %g days, strategies none attune vpa krr cruisekube\n",
              o.trace.c_str(), o.days);
  std::printf("  trace loaded once            %.2f s\n", loadSeconds);
  Timed sequential;
  Timed parallel;
  if (o.only != "parallel") {
    sequential = backtest(request, 1, wall);
    std::printf("  one core (--jobs 1)          %.1f s wall, %.1f s CPU\n", sequential.total.wall,
                sequential.total.cpu);
    double baseline = 0;
    for (const auto& [run, cost] : sequential.runs) {
      std::printf("    %-26s %.1f s wall, %.1f s CPU\n", run.c_str(), cost.wall, cost.cpu);
      if (run == "none") baseline = cost.cpu;
    }
    const double rate = strategyDays / sequential.total.cpu;
    std::printf("  rate                         %.3f strategy-days per CPU second\n", rate);
    const double thirtyDays = kTargetDays * static_cast<double>(request.strategies.size()) / rate;
    if (o.days >= kTargetDays) {
      std::printf("  target <= %.0f s on one core  %s (%.1f s CPU for %g days)\n", kTargetSeconds,
                  sequential.total.cpu <= kTargetSeconds ? "met" : "MISSED", sequential.total.cpu,
                  o.days);
    } else {
      std::printf(
          "  30 days, extrapolated        %.1f s CPU at this rate (target <= %.0f s: %s; "
          "measured over %g days only)\n",
          thirtyDays, kTargetSeconds, thirtyDays <= kTargetSeconds ? "met" : "MISSED", o.days);
    }
    if (baseline > 0) {
      std::printf("  against none (baseline)      %.2fx the CPU of the run without an operator\n",
                  sequential.total.cpu / baseline);
    }
  }
  if (o.only != "sequential") {
    parallel = backtest(request, o.jobs, wall);
    std::printf("  parallel (--jobs %s)   %.1f s wall, %.1f s CPU\n",
                o.jobs == 0 ? "default" : std::to_string(o.jobs).c_str(), parallel.total.wall,
                parallel.total.cpu);
  }
  if (o.only.empty()) {
    std::printf("  speed-up                     %.2fx the sequential runs (wall)\n",
                sequential.total.wall / parallel.total.wall);
    std::printf("  reports identical            %s\n",
                sequential.json == parallel.json ? "yes" : "NO");
    if (sequential.json != parallel.json) return 1;
  }
  return 0;
}
