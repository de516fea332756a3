// OperatorMetrics' savings sums recorded in two steps (a pass over many workloads) end as one
// setWorkloadSavings per workload leaves them, passes that change nothing included, and the
// resize series are created once.
#include "controller/operator_metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "metrics/exposition/registry.h"

namespace attune::controller {
namespace {

struct Saved {
  std::string ns;
  std::string workload;
  double cpu;
  double memory;
};

TEST(OperatorMetricsTest, SavingsPublishedOncePerNamespaceEndAsPerWorkloadCalls) {
  const std::vector<Saved> passes[] = {
      {{"apps", "web", 0.5, 1e9}, {"apps", "api", 0.25, 2e9}, {"batch", "etl", 1.5, 0}},
      {{"apps", "web", 0.125, 3e9}, {"batch", "etl", -0.5, 4e9}},
      // Nothing changed: the sums published before stand.
      {{"apps", "web", 0.125, 3e9}, {"batch", "etl", -0.5, 4e9}},
      // One workload of a namespace changed: that namespace is summed again.
      {{"apps", "web", 0.125, 3e9}, {"apps", "api", 1.0, 2e9}},
  };
  metrics::Registry oneByOne;
  metrics::Registry twoSteps;
  OperatorMetrics a(oneByOne);
  OperatorMetrics b(twoSteps);
  for (const auto& pass : passes) {
    for (const Saved& s : pass) a.setWorkloadSavings(s.ns, s.workload, s.cpu, s.memory);
    for (const Saved& s : pass) b.recordWorkloadSavings(s.ns, s.workload, s.cpu, s.memory);
    for (const char* ns : {"apps", "batch"}) b.publishSavings(ns);
    EXPECT_EQ(twoSteps.render(), oneByOne.render());
  }
  EXPECT_DOUBLE_EQ(b.savingsCpu.value({"apps"}), 0.125 + 1.0);
  EXPECT_DOUBLE_EQ(b.savingsMemory.value({"batch"}), 4e9);
}

// One pass of a policy over `workloads`, each with one container "app": its gauges, savings and
// what it published.
void pass(OperatorMetrics& m, const std::string& policy,
          const std::vector<std::pair<std::string, double>>& workloads) {
  OperatorMetrics::Published published;
  for (const auto& [workload, cores] : workloads) {
    m.recommendationCpu.set({"apps", workload, "app"}, cores);
    m.recordWorkloadSavings("apps", workload, cores, 0);
    published.workloads.emplace_back("apps", workload);
    published.containers.push_back({"apps", workload, "app"});
  }
  m.publishSavings("apps");
  m.published(policy, std::move(published));
}

bool has(const metrics::Registry& registry, const std::string& workload) {
  return registry.render().find("workload=\"" + workload + "\"") != std::string::npos;
}

TEST(OperatorMetricsTest, WhatAPolicyNoLongerPublishesIsWithdrawnButNotAnotherPolicysSeries) {
  metrics::Registry registry;
  OperatorMetrics m(registry);
  pass(m, "apps/a", {{"web", 0.5}, {"api", 0.25}, {"etl", 1.0}});
  EXPECT_DOUBLE_EQ(m.savingsCpu.value({"apps"}), 1.75);
  // `web` is deleted; `api` moves to policy b, whose pass comes first.
  pass(m, "apps/b", {{"api", 0.125}});
  pass(m, "apps/a", {{"etl", 1.0}});
  EXPECT_FALSE(has(registry, "web"));
  EXPECT_DOUBLE_EQ(m.recommendationCpu.value({"apps", "api", "app"}), 0.125);
  EXPECT_DOUBLE_EQ(m.recommendationCpu.value({"apps", "etl", "app"}), 1.0);
  EXPECT_DOUBLE_EQ(m.savingsCpu.value({"apps"}), 1.125);
  // Policy a is deleted, then b stops recommending `api`.
  m.reclaimedCpu.set({"apps", "a"}, 1.0);
  m.forgetPolicy("apps", "a");
  EXPECT_FALSE(has(registry, "etl"));
  EXPECT_EQ(registry.render().find("policy=\"a\""), std::string::npos);
  EXPECT_DOUBLE_EQ(m.savingsCpu.value({"apps"}), 0.125);
  pass(m, "apps/b", {});
  EXPECT_FALSE(has(registry, "api"));
  EXPECT_DOUBLE_EQ(m.savingsCpu.value({"apps"}), 0);
}

TEST(OperatorMetricsTest, ResizeSeriesAreFirstOncePerWorkload) {
  metrics::Registry registry;
  OperatorMetrics m(registry);
  EXPECT_TRUE(m.firstResizeSeries("apps", "web"));
  EXPECT_FALSE(m.firstResizeSeries("apps", "web"));
  EXPECT_TRUE(m.firstResizeSeries("apps", "api"));
  EXPECT_TRUE(m.firstResizeSeries("batch", "web"));
}

}  // namespace
}  // namespace attune::controller
