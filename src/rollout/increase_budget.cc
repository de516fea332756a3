#include "rollout/increase_budget.h"

#include <algorithm>

#include "core/quantity.h"

namespace attune::rollout {
namespace {

template <typename Amount>
Amount rise(const std::optional<Amount>& from, const std::optional<Amount>& to) {
  if (!from || !to || *to <= *from) return Amount(0);
  return Amount(to->value() - from->value());
}

template <typename Amount, typename Format>
std::optional<std::string> checkOne(const char* field, const std::optional<Amount>& limit,
                                    Amount taken, Amount asked, Format format) {
  if (!limit || asked.value() <= 0) return std::nullopt;
  if (taken.value() + asked.value() <= limit->value()) return std::nullopt;
  const Amount left(std::max<decltype(limit->value())>(0, limit->value() - taken.value()));
  std::string message = std::string(field) + " " + format(*limit) + ": the resize adds " +
                        format(asked) + ", " + format(left) + " left in this pass";
  message += asked > *limit ? " (the resize alone exceeds the budget; it cannot be made until "
                              "the budget is raised)"
                            : "; it waits for a later pass";
  return message;
}

}  // namespace

RequestIncrease requestIncrease(const std::vector<ContainerChange>& changes) {
  RequestIncrease out;
  for (const ContainerChange& c : changes) {
    out.cpu = Millicores(out.cpu.value() + rise(c.current.cpuRequest, c.target.cpuRequest).value());
    out.memory =
        Bytes(out.memory.value() + rise(c.current.memoryRequest, c.target.memoryRequest).value());
  }
  return out;
}

std::optional<std::string> IncreaseBudget::check(const RequestIncrease& increase) const {
  const auto cpu = [](Millicores m) { return formatCpu(m); };
  const auto memory = [](Bytes b) { return formatMemory(b); };
  if (auto msg = checkOne("maxTotalCpuIncrease", cpu_, taken_.cpu, increase.cpu, cpu)) return msg;
  return checkOne("maxTotalMemoryIncrease", memory_, taken_.memory, increase.memory, memory);
}

void IncreaseBudget::take(const RequestIncrease& increase) {
  taken_.cpu = Millicores(taken_.cpu.value() + increase.cpu.value());
  taken_.memory = Bytes(taken_.memory.value() + increase.memory.value());
}

}  // namespace attune::rollout
