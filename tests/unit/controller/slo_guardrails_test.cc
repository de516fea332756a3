// SLO guardrails (updateStrategy.sloGuardrails) end to end on the simulated cluster: a guardrail
// is evaluated for each resized pod once its evaluationWindow has passed, with its query's
// template variables filled in; a breach reverts the resize with reason slo:<name> (history,
// Reverted event, attune_reverts_total); a query that yields no number fails open and is
// reported with an SLOGuardrailSkipped event, and the resize is kept.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "controller/slo_queries.h"
#include "core/units.h"
#include "metrics/scalar_query.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// A query backend whose answer is a function of the query text; remembers every query and when
// it was asked.
class ScriptedQuery final : public metrics::ScalarQuery, public SloQuerySelector {
 public:
  using Answer = std::function<Result<double>(const std::string& promql)>;
  explicit ScriptedQuery(Answer answer) : answer_(std::move(answer)) {}

  Result<double> evaluate(std::string_view promql, Time at) override {
    asked.push_back({std::string(promql), at});
    return answer_(std::string(promql));
  }
  Result<metrics::ScalarQuery*> queryFor(const api::AttunePolicy&) override { return this; }

  struct Asked {
    std::string promql;
    Time at;
  };
  std::vector<Asked> asked;

 private:
  Answer answer_;
};

constexpr std::string_view kLatencyQuery =
    R"(latency{namespace=\"{{ .Namespace }}\",workload=\"{{.WorkloadName}}\",pod=\"{{ .PodName }}\"})";

// `web` (one replica, requests 500m / 512Mi, using 200m / 200Mi) is resized down by an Auto
// policy whose guardrail `p99-latency` is evaluated 2 minutes after the resize; the period is
// 10 minutes.
std::string guardrailScenario(std::string_view guardrail) {
  return scenarioYaml(
      workloadYaml({.name = "web"}),
      policyYaml({.name = "web",
                  .target = "web",
                  .updateStrategy = "{type: Auto, safetyObservationPeriod: 10m, sloGuardrails: [" +
                                    std::string(guardrail) + "]}"}));
}

std::string latencyGuardrail(std::string_view extra = {}) {
  return "{name: p99-latency, query: \"" + std::string(kLatencyQuery) +
         "\", threshold: \"0.5\", evaluationWindow: 2m" + std::string(extra) + "}";
}

TEST(SloGuardrailsTest, ABreachAfterTheWindowRevertsWithTheGuardrailsName) {
  ScriptedQuery query([](const std::string&) -> Result<double> { return 0.9; });
  HarnessOptions options;
  options.controller.sloQueries = &query;
  ScenarioHarness h(guardrailScenario(latencyGuardrail()), options);
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", "web"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;
  const std::string podName = h.pod("apps", "web").metadata.name;
  EXPECT_NE(specResources(h.pod("apps", "web"), "app"), original);

  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kReverted).empty(); }, 12min));
  const ActionRecord revert = h.actions(Kind::kReverted).front();
  EXPECT_EQ(revert.reason, "slo:p99-latency");
  EXPECT_GE(revert.time, resizedAt + 2min) << "not before the evaluation window";
  EXPECT_LT(revert.time, resizedAt + 4min) << "at the first pass after the window";
  ASSERT_FALSE(query.asked.empty());
  EXPECT_GE(query.asked.front().at, resizedAt + 2min);
  EXPECT_EQ(query.asked.front().promql,
            R"(latency{namespace="apps",workload="web",pod=")" + podName + "\"}");
  h.runMinutes(1);

  const api::Pod after = h.pod("apps", "web");
  EXPECT_EQ(specResources(after, "app"), original);
  EXPECT_FALSE(hasAnnotationPrefix(after.metadata, "attune.io/resized-at"));
  const api::AttunePolicy policy = h.policy("apps", "web");
  EXPECT_FALSE(history(policy, api::ResizeResult::kReverted, "slo:p99-latency").empty());
  const auto reverted = h.events("Reverted");
  ASSERT_EQ(reverted.size(), 1u);
  EXPECT_NE(reverted[0].message.find("SLO guardrail p99-latency breached: 0.9 is above the "
                                     "threshold 0.5"),
            std::string::npos)
      << reverted[0].message;
  EXPECT_EQ(
      h.metric(R"(attune_reverts_total{namespace="apps",workload="web",reason="slo:p99-latency"})"),
      1.0);
}

TEST(SloGuardrailsTest, BelowComparesTheOtherWayAndAValueWithinTheThresholdKeepsTheResize) {
  // 0.9 is not below 0.5: no breach, the resize is declared safe at the end of the period.
  ScriptedQuery query([](const std::string&) -> Result<double> { return 0.9; });
  HarnessOptions options;
  options.controller.sloQueries = &query;
  ScenarioHarness h(guardrailScenario(latencyGuardrail(", comparison: below")), options);
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const api::ResourceValues resized = specResources(h.pod("apps", "web"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kSafe).empty(); }, 12min));
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());
  EXPECT_FALSE(query.asked.empty()) << "the guardrail was evaluated";
  EXPECT_EQ(specResources(h.pod("apps", "web"), "app"), resized);
  EXPECT_TRUE(h.events("SLOGuardrailSkipped").empty());
}

// Errors, empty results, NaN and Inf fail open: the resize is kept, and each is reported.
TEST(SloGuardrailsTest, NoNumberFailsOpenAndIsReported) {
  int call = 0;
  ScriptedQuery query([&call](const std::string&) -> Result<double> {
    switch (call++ % 4) {
      case 0:
        return std::unexpected(Error{ErrorCode::kUnavailable, "prometheus unreachable", ""});
      case 1:
        return std::unexpected(Error{ErrorCode::kNotFound, "empty result", ""});
      case 2:
        return std::nan("");
      default:
        return INFINITY;
    }
  });
  HarnessOptions options;
  options.controller.sloQueries = &query;
  ScenarioHarness h(guardrailScenario(latencyGuardrail()), options);
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const api::ResourceValues resized = specResources(h.pod("apps", "web"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kSafe).empty(); }, 12min));
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());
  EXPECT_EQ(specResources(h.pod("apps", "web"), "app"), resized);
  EXPECT_GE(call, 4) << "evaluated at every pass from the window's end to the period's end";
  std::string messages;
  for (const api::Event& e : h.events("SLOGuardrailSkipped")) {
    EXPECT_EQ(e.type, "Warning");
    messages += e.message + "\n";
  }
  EXPECT_NE(messages.find("prometheus unreachable"), std::string::npos) << messages;
  EXPECT_NE(messages.find("empty result"), std::string::npos) << messages;
  EXPECT_NE(messages.find("nan"), std::string::npos) << messages;
  EXPECT_NE(messages.find("inf"), std::string::npos) << messages;
  EXPECT_NE(messages.find("SLO guardrail p99-latency not evaluated for pod web-"),
            std::string::npos)
      << messages;
}

// A guardrail window longer than the observation period extends the period: the resize is not
// declared safe before the guardrail could run.
TEST(SloGuardrailsTest, TheObservationLastsAtLeastTheLongestWindow) {
  ScriptedQuery query([](const std::string&) -> Result<double> { return 0.1; });
  HarnessOptions options;
  options.controller.sloQueries = &query;
  ScenarioHarness h(
      guardrailScenario("{name: errors, query: up, threshold: \"0.5\", evaluationWindow: 20m}"),
      options);
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kSafe).empty(); }, 25min));
  EXPECT_GE(h.actions(Kind::kSafe).front().time, resizedAt + 20min);
  ASSERT_FALSE(query.asked.empty());
  EXPECT_GE(query.asked.front().at, resizedAt + 20min);
}

}  // namespace
}  // namespace attune::controller::testing
