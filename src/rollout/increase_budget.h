// The per-pass increase budget (spec.updateStrategy.maxTotalCpuIncrease and
// maxTotalMemoryIncrease): the requests all resizes of one plan add together never exceed them.
// A resize that does not fit is skipped with reason IncreaseBudget and waits for a later pass;
// decreases take nothing from the budget. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/units.h"
#include "rollout/pod_targets.h"

namespace attune::rollout {

// What one resize adds: over its containers, the sum of each request's rise (a container whose
// request falls adds nothing; limits do not count).
struct RequestIncrease {
  Millicores cpu{0};
  Bytes memory{0};
};
RequestIncrease requestIncrease(const std::vector<ContainerChange>& changes);

class IncreaseBudget {
 public:
  // nullopt: that resource is not limited.
  IncreaseBudget(std::optional<Millicores> cpu, std::optional<Bytes> memory)
      : cpu_(cpu), memory_(memory) {}

  // Why `increase` does not fit in what is left (nullopt when it fits). The message says how
  // much is asked, left and allowed, and whether the resize alone is larger than the budget.
  std::optional<std::string> check(const RequestIncrease& increase) const;
  // Records that a resize adding `increase` was planned.
  void take(const RequestIncrease& increase);

 private:
  std::optional<Millicores> cpu_;
  std::optional<Bytes> memory_;
  RequestIncrease taken_;
};

}  // namespace attune::rollout
