// spec.cpu.startupBoost and spec.updateStrategy.sloGuardrails as modelled fields: decoded without
// the "no effect" warning, encoded back (round trip), defaulted, validated with field paths and
// lines, inherited from the defaults tiers; and the guardrail query's template variables.
#include <gtest/gtest.h>

#include <string>

#include "api/policy/attune_defaults.h"
#include "api/policy/policy_codec.h"
#include "api/policy/policy_defaults.h"
#include "api/policy/slo_query.h"
#include "policy_test_util.h"

namespace attune::api {
namespace {

using namespace std::chrono_literals;
using testing::describe;
using testing::expectOnly;
using testing::kMinimalPolicy;

std::string withSpec(std::string_view more) { return std::string(kMinimalPolicy) + more.data(); }

constexpr std::string_view kBoth = R"(  cpu:
    startupBoost: {multiplier: "3.0", duration: 2m}
  updateStrategy:
    type: Auto
    sloGuardrails:
      - name: p99-latency
        query: latency{namespace="{{ .Namespace }}", pod="{{ .PodName }}"}
        threshold: "0.5"
        comparison: below
        evaluationWindow: 3m
      - {name: errors, query: up, threshold: "1e-2"}
)";

TEST(SloStartupBoostTest, DecodeWithoutAnyWarningAndRoundTrip) {
  const auto docs = checkPolicies(withSpec(kBoth));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_TRUE(docs[0].errors.empty()) << describe(docs[0].errors);
  EXPECT_TRUE(docs[0].warnings.empty()) << describe(docs[0].warnings);
  const AttunePolicy& p = *docs[0].policy;
  EXPECT_TRUE(p.preserved.empty());
  ASSERT_TRUE(p.spec.cpu.startupBoost);
  EXPECT_EQ(p.spec.cpu.startupBoost->multiplier, "3.0");
  EXPECT_EQ(p.spec.cpu.startupBoost->duration, 2min);
  const auto& g = p.spec.updateStrategy.sloGuardrails;
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "p99-latency");
  EXPECT_EQ(g[0].query, R"(latency{namespace="{{ .Namespace }}", pod="{{ .PodName }}"})");
  EXPECT_EQ(g[0].threshold, "0.5");
  EXPECT_EQ(g[0].comparison, SloComparison::kBelow);
  EXPECT_EQ(g[0].evaluationWindow, 3min);
  EXPECT_EQ(g[1].comparison, std::nullopt);

  const auto again = decodePolicies(encodePolicyYaml(p));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].policy, p);
  const auto json = decodePolicies(encodePolicyJson(p));
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0].policy, p);
}

TEST(SloStartupBoostTest, Defaults) {
  auto doc = testing::decodeOne(withSpec(kBoth));
  AttunePolicy p = *doc.policy;
  applyDefaults(p);
  EXPECT_EQ(p.spec.updateStrategy.sloGuardrails[1].comparison, SloComparison::kAbove);
  EXPECT_EQ(p.spec.updateStrategy.sloGuardrails[1].evaluationWindow, 5min);
  EXPECT_EQ(p.spec.updateStrategy.sloGuardrails[0].evaluationWindow, 3min);
}

TEST(SloStartupBoostTest, StartupBoostBoundsAreCheckedWithPathAndLine) {
  struct Case {
    std::string boost;
    std::string path;
    std::string message;
  };
  const Case cases[] = {
      {"{multiplier: \"1.0\", duration: 2m}", "spec.cpu.startupBoost.multiplier",
       "must be greater than 1 and at most 10, got 1.0"},
      {"{multiplier: \"10.5\", duration: 2m}", "spec.cpu.startupBoost.multiplier",
       "must be greater than 1 and at most 10, got 10.5"},
      {"{multiplier: \"three\", duration: 2m}", "spec.cpu.startupBoost.multiplier",
       "must be a decimal number such as \"2.0\", got \"three\""},
      {"{multiplier: \"2\", duration: 5s}", "spec.cpu.startupBoost.duration",
       "must be between 10s and 1h, got 5s"},
      {"{multiplier: \"2\", duration: 2h}", "spec.cpu.startupBoost.duration",
       "must be between 10s and 1h, got 2h"},
      {"{multiplier: \"2\"}", "spec.cpu.startupBoost.duration", "required"},
      {"{duration: 1m}", "spec.cpu.startupBoost.multiplier", "required"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.boost);
    const auto docs = checkPolicies(withSpec("  cpu:\n    startupBoost: " + c.boost + "\n"));
    ASSERT_EQ(docs.size(), 1u);
    expectOnly(docs[0].errors, c.path, c.message);
    if (c.message != "required") {
      EXPECT_EQ(docs[0].errors[0].line, 14);
    }
  }
}

TEST(SloStartupBoostTest, GuardrailsAreCheckedWithPathAndLine) {
  struct Case {
    std::string guardrails;
    std::string path;
    std::string message;
  };
  const Case cases[] = {
      {"[{query: up, threshold: \"1\"}]", "spec.updateStrategy.sloGuardrails[0].name", "required"},
      {"[{name: a, threshold: \"1\"}]", "spec.updateStrategy.sloGuardrails[0].query", "required"},
      {"[{name: a, query: up}]", "spec.updateStrategy.sloGuardrails[0].threshold", "required"},
      {"[{name: a, query: up, threshold: \"high\"}]",
       "spec.updateStrategy.sloGuardrails[0].threshold",
       "must be a decimal number such as \"0.5\", got \"high\""},
      {"[{name: a, query: up, threshold: \"1\", evaluationWindow: 30s}]",
       "spec.updateStrategy.sloGuardrails[0].evaluationWindow", "must be at least 1m, got 30s"},
      {"[{name: a, query: up, threshold: \"1\"}, {name: a, query: up, threshold: \"2\"}]",
       "spec.updateStrategy.sloGuardrails[1].name", "duplicate guardrail name \"a\""},
      {"[{name: a, query: \"up{pod=\\\"{{ .Pod }}\\\"}\", threshold: \"1\"}]",
       "spec.updateStrategy.sloGuardrails[0].query",
       "unknown template action \"{{ .Pod }}\"; the query may use {{ .Namespace }}, "
       "{{ .WorkloadName }} and {{ .PodName }}"},
      {"[{name: a, query: \"up{pod=\\\"{{ .PodName\\\"}\", threshold: \"1\"}]",
       "spec.updateStrategy.sloGuardrails[0].query", "unterminated \"{{\" in the query template"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.guardrails);
    const auto docs =
        checkPolicies(withSpec("  updateStrategy:\n    sloGuardrails: " + c.guardrails + "\n"));
    ASSERT_EQ(docs.size(), 1u);
    expectOnly(docs[0].errors, c.path, c.message);
    EXPECT_EQ(docs[0].errors[0].line, 14);
  }
  // At most 10 guardrails, as the CRD says.
  std::string eleven = "[";
  for (int i = 0; i < 11; ++i) {
    eleven += (i > 0 ? ", " : "") + std::string("{name: g") + std::to_string(i) +
              ", query: up, threshold: \"1\"}";
  }
  const auto many =
      checkPolicies(withSpec("  updateStrategy:\n    sloGuardrails: " + eleven + "]\n"));
  ASSERT_EQ(many.size(), 1u);
  expectOnly(many[0].errors, "spec.updateStrategy.sloGuardrails",
             "must have at most 10 items, got 11");
  // An unknown comparison is a decode error naming the allowed values.
  const auto docs = checkPolicies(withSpec(
      "  updateStrategy:\n    sloGuardrails: [{name: a, query: up, threshold: \"1\", comparison: "
      "over}]\n"));
  ASSERT_EQ(docs.size(), 1u);
  ASSERT_EQ(docs[0].errors.size(), 1u) << describe(docs[0].errors);
  EXPECT_EQ(docs[0].errors[0].error.field, "spec.updateStrategy.sloGuardrails[0].comparison");
}

TEST(SloStartupBoostTest, InheritedFromTheDefaultsTiersAsWholeValues) {
  const auto defaults = decodeDefaults(R"(apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata: {name: cluster}
spec:
  cpu:
    startupBoost: {multiplier: "2.0", duration: 1m}
  updateStrategy:
    sloGuardrails: [{name: errors, query: up, threshold: "1"}]
)");
  ASSERT_EQ(defaults.size(), 1u);
  ASSERT_TRUE(defaults[0].errors.empty()) << describe(defaults[0].errors);
  EXPECT_TRUE(defaults[0].warnings.empty()) << describe(defaults[0].warnings);
  const AttuneDefaults& cluster = *defaults[0].defaults;

  const AttunePolicy bare = *testing::decodeOne(kMinimalPolicy).policy;
  const AttunePolicy merged = mergeDefaults(bare, nullptr, &cluster);
  ASSERT_TRUE(merged.spec.cpu.startupBoost);
  EXPECT_EQ(merged.spec.cpu.startupBoost->multiplier, "2.0");
  ASSERT_EQ(merged.spec.updateStrategy.sloGuardrails.size(), 1u);
  EXPECT_EQ(merged.spec.updateStrategy.sloGuardrails[0].name, "errors");

  // The policy's own list wins as a whole.
  const AttunePolicy own = *testing::decodeOne(withSpec(kBoth)).policy;
  const AttunePolicy kept = mergeDefaults(own, nullptr, &cluster);
  EXPECT_EQ(kept.spec.updateStrategy.sloGuardrails, own.spec.updateStrategy.sloGuardrails);
  EXPECT_EQ(kept.spec.cpu.startupBoost->multiplier, "3.0");
}

TEST(SloStartupBoostTest, MemoryStartupBoostStaysANoEffectField) {
  // The public operator boosts CPU only.
  const auto docs =
      checkPolicies(withSpec("  memory:\n    startupBoost: {multiplier: \"2\", duration: 1m}\n"));
  ASSERT_EQ(docs.size(), 1u);
  ASSERT_EQ(docs[0].warnings.size(), 1u);
  EXPECT_EQ(docs[0].warnings[0].error.field, "spec.memory.startupBoost");
}

TEST(SloQueryTest, RendersTheThreeVariablesWithOrWithoutSpaces) {
  const auto text = renderSloQuery(
      R"(x{namespace="{{ .Namespace }}",workload="{{.WorkloadName}}",pod="{{  .PodName  }}"})",
      {.namespace_ = "apps", .workload = "web", .pod = "web-1"});
  ASSERT_TRUE(text) << text.error().toString();
  EXPECT_EQ(*text, R"(x{namespace="apps",workload="web",pod="web-1"})");
  EXPECT_EQ(*renderSloQuery("sum(rate(x[5m]))", {}), "sum(rate(x[5m]))");
}

}  // namespace
}  // namespace attune::api
