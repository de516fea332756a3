// rollout/increase_budget: what a resize adds, and the budget shared across one plan.
#include "rollout/increase_budget.h"

#include <gtest/gtest.h>

namespace attune::rollout {
namespace {

ContainerChange change(std::int64_t cpuFrom, std::int64_t cpuTo, std::int64_t memFrom,
                       std::int64_t memTo) {
  ContainerChange c;
  c.name = "app";
  c.current.cpuRequest = Millicores(cpuFrom);
  c.target.cpuRequest = Millicores(cpuTo);
  c.current.memoryRequest = Bytes(memFrom);
  c.target.memoryRequest = Bytes(memTo);
  return c;
}

TEST(IncreaseBudgetTest, OnlyRisingRequestsAdd) {
  const RequestIncrease r =
      requestIncrease({change(100, 300, 500, 200), change(400, 450, 100, 300)});
  EXPECT_EQ(r.cpu, Millicores(250));
  EXPECT_EQ(r.memory, Bytes(200));
  ContainerChange limitsOnly;
  limitsOnly.current.cpuLimit = Millicores(100);
  limitsOnly.target.cpuLimit = Millicores(900);
  EXPECT_EQ(requestIncrease({limitsOnly}).cpu, Millicores(0));
}

TEST(IncreaseBudgetTest, ThePlanSharesOneBudget) {
  IncreaseBudget budget(Millicores(450), std::nullopt);
  const RequestIncrease one{Millicores(200), Bytes(1 << 30)};
  EXPECT_FALSE(budget.check(one));
  budget.take(one);
  EXPECT_FALSE(budget.check(one));
  budget.take(one);
  const auto msg = budget.check(one);
  ASSERT_TRUE(msg);
  EXPECT_EQ(*msg,
            "maxTotalCpuIncrease 450m: the resize adds 200m, 50m left in this pass; it waits for "
            "a later pass");
  EXPECT_FALSE(budget.check({Millicores(50), Bytes(0)})) << "a smaller one still fits";
  EXPECT_FALSE(budget.check({Millicores(0), Bytes(1LL << 40)})) << "memory is unlimited";
}

TEST(IncreaseBudgetTest, AResizeLargerThanTheWholeBudgetSaysSo) {
  const IncreaseBudget budget(std::nullopt, Bytes(100 << 20));
  const auto msg = budget.check({Millicores(0), Bytes(200 << 20)});
  ASSERT_TRUE(msg);
  EXPECT_NE(msg->find("maxTotalMemoryIncrease 100Mi"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("alone exceeds the budget"), std::string::npos) << *msg;
}

TEST(IncreaseBudgetTest, AZeroBudgetStillAllowsDecreases) {
  const IncreaseBudget budget(Millicores(0), Bytes(0));
  EXPECT_FALSE(budget.check(requestIncrease({change(500, 300, 512, 256)})));
  EXPECT_TRUE(budget.check(requestIncrease({change(300, 301, 256, 256)})));
}

}  // namespace
}  // namespace attune::rollout
