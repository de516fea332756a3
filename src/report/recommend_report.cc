#include "report/recommend_report.h"

namespace attune::report {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double cores(const std::optional<Millicores>& m) { return m ? toCores(*m) : 0.0; }
double gib(const std::optional<Bytes>& b) {
  return b ? static_cast<double>(b->value()) / kGiB : 0.0;
}

}  // namespace

std::vector<StrategyTotals> totals(const RecommendReport& r) {
  std::vector<StrategyTotals> out;
  for (std::size_t i = 0; i < r.strategies.size(); ++i) {
    StrategyTotals t{.strategy = r.strategies[i]};
    for (const WorkloadReport& w : r.workloads) {
      const double replicas = w.replicas;
      for (const ContainerReport& c : w.containers) {
        ++t.containers;
        const double cpuNow = cores(c.current.cpuRequest) * replicas;
        const double memNow = gib(c.current.memoryRequest) * replicas;
        t.cpuCoresNow += cpuNow;
        t.memoryGiBNow += memNow;
        const recommend::Recommendation* rec =
            i < c.results.size() ? &c.results[i].recommendation : nullptr;
        if (rec == nullptr || !rec->enoughData) {
          ++t.containersWithoutRecommendation;
          t.cpuCoresRecommended += cpuNow;
          t.memoryGiBRecommended += memNow;
          continue;
        }
        // An unset recommended request leaves the current one in place.
        t.cpuCoresRecommended +=
            rec->resources.cpuRequest ? cores(rec->resources.cpuRequest) * replicas : cpuNow;
        t.memoryGiBRecommended +=
            rec->resources.memoryRequest ? gib(rec->resources.memoryRequest) * replicas : memNow;
      }
    }
    out.push_back(t);
  }
  return out;
}

std::optional<double> changePercent(std::optional<std::int64_t> current,
                                    std::optional<std::int64_t> recommended) {
  if (!current || !recommended || *current == 0) return std::nullopt;
  return 100.0 * static_cast<double>(*recommended - *current) / static_cast<double>(*current);
}

double savedPercent(double now, double recommended) {
  return now == 0 ? 0.0 : 100.0 * (now - recommended) / now;
}

}  // namespace attune::report
