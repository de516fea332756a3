// The backtest's speed on a trace: `attune backtest --trace DIR --strategy none attune vpa krr
// cruisekube --days 30`, the trace loaded once, the five runs one after the other (--jobs 1) and
// then at once on threads (--jobs N). Target: the sequential runs in <= 300 s on one core
// (run it under `taskset -c 0`).
//
// Baseline, measured in the same run: the sequential runs; the figure is the parallel time and
// its ratio to them (the speed-up), and the two reports are compared byte for byte.
//
// Flags: --trace=DIR (required; e.g. ../shared/traces/bitbrains-rnd-2013-7), --days=N (default
// 30), --jobs=N (default: the hardware threads the process may run on), --only=sequential|parallel
// (one of the two, no ratio).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/simulate_run.h"
#include "core/clock.h"
#include "report/simulation_report.h"

namespace {

using namespace attune;

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

// One backtest of every strategy; its JSON report and wall seconds.
struct Timed {
  std::string json;
  double seconds = 0;
};

Timed backtest(cli::SimulateRequest request, unsigned jobs, Clock& wall) {
  request.jobs = jobs;
  const Time began = wall.now();
  auto report = cli::runSimulate(request);
  const double seconds = std::chrono::duration<double>(wall.now() - began).count();
  if (!report) {
    std::fprintf(stderr, "backtest_bench: %s\n", report.error().toString().c_str());
    std::exit(1);
  }
  return {report::renderSimulationJson(*report), seconds};
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

  std::printf("backtest_bench: %s, %g days, strategies none attune vpa krr cruisekube\n",
              o.trace.c_str(), o.days);
  std::printf("  trace loaded once     %.2f s\n", loadSeconds);
  Timed sequential;
  Timed parallel;
  if (o.only != "parallel") {
    sequential = backtest(request, 1, wall);
    std::printf("  sequential (--jobs 1) %.1f s", sequential.seconds);
    if (o.days >= 30) {
      std::printf("  target <= 300 s on one core: %s",
                  sequential.seconds <= 300 ? "met" : "MISSED");
    }
    std::printf("\n");
  }
  if (o.only != "sequential") {
    parallel = backtest(request, o.jobs, wall);
    std::printf("  parallel (--jobs %s)   %.1f s\n",
                o.jobs == 0 ? "default" : std::to_string(o.jobs).c_str(), parallel.seconds);
  }
  if (o.only.empty()) {
    std::printf("  speed-up              %.2fx the sequential runs\n",
                sequential.seconds / parallel.seconds);
    std::printf("  reports identical     %s\n", sequential.json == parallel.json ? "yes" : "NO");
    if (sequential.json != parallel.json) return 1;
  }
  return 0;
}
