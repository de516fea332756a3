// `attune backtest` (old name `attune simulate`, still accepted): backtest the controller core
// (policies, rollout modes, safety monitor) against the simulated cluster, once per strategy,
// and report what each would have saved and broken. The pipeline is in simulate_run.h; the
// output in report/simulation_report.h.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "api/policy/attune_policy.h"
#include "api/policy/policy_codec.h"
#include "cli/commands.h"
#include "cli/simulate_run.h"
#include "report/simulation_report.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::cli {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitInvalid = 1;
constexpr int kExitUsage = 2;

struct BacktestOptions {
  std::string scenario;
  std::string trace;
  std::vector<std::string> strategies;
  std::string mode;
  double days = 0;
  std::string json;
  std::string html;
  std::string reconcileInterval = "1m";
  std::string policiesOut;
  std::string hpaGuard;
  std::string hpaGuardInterval = "1m";
  std::string nodeOptimisation;
  unsigned jobs = 0;
  bool quiet = false;
};

Result<api::UpdateMode> parseMode(std::string_view text) {
  for (std::size_t i = 0; i < api::kUpdateModeNames.size(); ++i) {
    if (api::kUpdateModeNames[i] == text) return static_cast<api::UpdateMode>(i);
  }
  return fail(ErrorCode::kInvalidArgument,
              fmt::format("--mode: must be one of Observe, Recommend, OneShot, Canary, Auto; "
                          "got \"{}\"",
                          text));
}

bool writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

int run(const BacktestOptions& o) {
  SimulateRequest request;
  if (!o.trace.empty() && !o.scenario.empty()) {
    std::cerr << "attune backtest: give a SCENARIO or --trace, not both\n";
    return kExitUsage;
  }
  std::optional<api::UpdateMode> mode;
  if (!o.mode.empty()) {
    auto m = parseMode(o.mode);
    if (!m) {
      std::cerr << "attune backtest: " << m.error().message << "\n";
      return kExitUsage;
    }
    mode = *m;
  }
  if (!o.trace.empty()) {
    auto s = scenarioFromTrace(o.trace, mode);
    if (!s) {
      std::cerr << "attune backtest: " << o.trace << ": " << s.error().toString() << "\n";
      return kExitInvalid;
    }
    request.scenario = std::move(*s);
  } else {
    sim::DecodedScenario decoded;
    std::string file = "demo";
    if (o.scenario.empty()) {
      decoded = sim::decodeBuiltinDemo();
    } else {
      file = o.scenario;
      auto read = sim::readScenarioFile(o.scenario);
      if (!read) {
        std::cerr << "attune backtest: " << o.scenario << ": " << read.error().toString() << "\n";
        return kExitInvalid;
      }
      decoded = std::move(*read);
    }
    if (!decoded.scenario) {
      for (const auto& d : decoded.errors) std::cerr << sim::formatDiagnostic(file, d) << "\n";
      return kExitInvalid;
    }
    request.scenario = std::move(*decoded.scenario);
  }
  request.mode = mode;
  if (o.days > 0) {
    request.scenario.duration =
        std::chrono::duration_cast<Duration>(std::chrono::duration<double>(o.days * 86400.0));
  }
  // By default the baseline and the project's default strategy (docs/strategies.md; `attune` is
  // the public operator's defaults, an anchor like vpa, krr and cruisekube), side by side,
  // ending with the headline.
  request.strategies =
      o.strategies.empty()
          ? std::vector<std::string>{std::string(kNoOperator), std::string(kDefaultStrategy)}
          : o.strategies;
  auto interval = parseDuration(o.reconcileInterval);
  if (!interval || *interval <= Duration::zero()) {
    std::cerr << "attune backtest: --reconcile-interval: not a positive duration\n";
    return kExitUsage;
  }
  request.reconcileInterval = *interval;
  if (!o.hpaGuard.empty()) {
    request.hpaGuard = o.hpaGuard == "on"        ? HpaGuardMode::kOn
                       : o.hpaGuard == "compare" ? HpaGuardMode::kCompare
                                                 : HpaGuardMode::kOff;
  }
  auto guardInterval = parseDuration(o.hpaGuardInterval);
  if (!guardInterval || *guardInterval <= Duration::zero()) {
    std::cerr << "attune backtest: --hpa-guard-interval: not a positive duration\n";
    return kExitUsage;
  }
  request.hpaGuardInterval = *guardInterval;
  if (!o.nodeOptimisation.empty()) {
    request.nodeOptimisation = o.nodeOptimisation == "on"        ? NodeOptimisationMode::kOn
                               : o.nodeOptimisation == "compare" ? NodeOptimisationMode::kCompare
                                                                 : NodeOptimisationMode::kOff;
  }

  request.jobs = o.jobs;

  std::string policies;
  if (!o.policiesOut.empty()) {
    request.onFinish = [&](const std::string& strategy, sim::Simulation& simulation) {
      auto list = simulation.api().listAttunePolicies({});
      if (!list) return;
      for (const api::AttunePolicy& p : list->items) {
        policies += fmt::format("# strategy {}\n---\n{}", strategy, api::encodePolicyYaml(p));
      }
    };
  }
  const SimulateProgress progress = [&](const std::string& line) {
    if (!o.quiet) std::cerr << line << "\n";
  };
  auto report = runSimulate(request, progress);
  if (!report) {
    std::cerr << "attune backtest: " << report.error().toString() << "\n";
    return kExitInvalid;
  }
  std::cout << report::renderSimulationTable(*report);
  if (!o.json.empty() && !writeFile(o.json, report::renderSimulationJson(*report))) {
    std::cerr << "attune backtest: cannot write " << o.json << "\n";
    return kExitInvalid;
  }
  if (!o.policiesOut.empty() && !writeFile(o.policiesOut, policies)) {
    std::cerr << "attune backtest: cannot write " << o.policiesOut << "\n";
    return kExitInvalid;
  }
  if (!o.html.empty() && !writeFile(o.html, report::renderSimulationHtml(*report))) {
    std::cerr << "attune backtest: cannot write " << o.html << "\n";
    return kExitInvalid;
  }
  return kExitOk;
}

}  // namespace

void addBacktestCommand(CLI::App& app, int& exitCode) {
  auto options = std::make_shared<BacktestOptions>();
  CLI::App* cmd = app.add_subcommand(
      "backtest",
      "Backtest the controller on the simulated cluster (the built-in demo by default), once per "
      "strategy, and compare them: requests before and after, use, throttling, OOM kills, "
      "resizes (docs/simulate-report.md). `attune simulate` is its old name, still accepted.");
  cmd->alias("simulate");
  cmd->add_option("SCENARIO", options->scenario, "Scenario file (docs/scenarios.md)");
  cmd->add_option("--trace", options->trace,
                  "Replay a Bitbrains or Attune CSV trace (file or directory) instead");
  cmd->add_option("--strategy", options->strategies,
                  fmt::format("Strategies to compare: adaptive, attune, cruisekube, vpa, krr, and "
                              "none (no operator: the baseline) (default {},{}); with none and "
                              "another, "
                              "the output ends with the headline: what each saved against none",
                              kNoOperator, kDefaultStrategy))
      ->delimiter(',');
  cmd->add_option("--mode", options->mode,
                  "Run every policy in this mode: Observe, Recommend, OneShot, Canary, Auto");
  cmd->add_option("--days", options->days, "Simulated days (default: the scenario's duration)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--json", options->json, "Write the JSON summary to this file");
  cmd->add_option("--html", options->html, "Write the self-contained HTML report to this file");
  cmd->add_option("--reconcile-interval", options->reconcileInterval,
                  "How often the controller reconciles (default 1m)");
  cmd->add_option("--policies-out", options->policiesOut,
                  "Write every AttunePolicy as it ended (status included) to this YAML file");
  cmd->add_option("--hpa-guard", options->hpaGuard,
                  "Run the HPA guard on estafette.io/hpa-scaler HPAs: on, off, or compare (the "
                  "scenario twice, without and with it, side by side) (docs/hpa.md)")
      ->check(CLI::IsMember({"on", "off", "compare"}));
  cmd->add_option("--hpa-guard-interval", options->hpaGuardInterval,
                  "Time between two passes of the HPA guard (default 1m)");
  cmd->add_option("--node-optimisation", options->nodeOptimisation,
                  "Continuous node optimisation for every policy, with the pod admission webhook's "
                  "sizing in process: on, off, or compare (the scenario twice, off then on, side "
                  "by side) (docs/node-optimisation.md)")
      ->check(CLI::IsMember({"on", "off", "compare"}));
  cmd->add_option("--jobs", options->jobs,
                  "Runs at once, each on its own thread; the report does not depend on it "
                  "(default 0: one per hardware thread)");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress lines on stderr");
  cmd->callback([options, &exitCode] { exitCode = run(*options); });
}

}  // namespace attune::cli
