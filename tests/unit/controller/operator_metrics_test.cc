// OperatorMetrics' savings sums recorded in two steps (a pass over many workloads) end as one
// setWorkloadSavings per workload leaves them, passes that change nothing included, and the
// resize series are created once.
#include "controller/operator_metrics.h"

#include <gtest/gtest.h>

#include <string>
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
