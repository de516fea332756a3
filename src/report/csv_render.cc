// renderCsv: one row per (workload, container, strategy).
#include <fmt/core.h>

#include <string>

#include "report/recommend_render.h"
#include "report/render_values.h"

namespace attune::report {
namespace {

template <typename T>
std::string field(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "";
}

// Quotes a field holding a comma, quote or line break (RFC 4180).
std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string amounts(const api::ResourceValues& v) {
  return fmt::format("{},{},{},{}", field(raw(v.cpuRequest)), field(raw(v.cpuLimit)),
                     field(raw(v.memoryRequest)), field(raw(v.memoryLimit)));
}

std::string percentField(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}", *v) : "";
}

}  // namespace

std::string renderCsv(const RecommendReport& r) {
  std::string out =
      "namespace,kind,workload,container,replicas,data_points,strategy,"
      "current_cpu_request_millicores,current_cpu_limit_millicores,current_memory_request_bytes,"
      "current_memory_limit_bytes,recommended_cpu_request_millicores,"
      "recommended_cpu_limit_millicores,recommended_memory_request_bytes,"
      "recommended_memory_limit_bytes,cpu_request_change_percent,memory_request_change_percent,"
      "enough_data,reason\n";
  for (const WorkloadReport& w : r.workloads) {
    for (const ContainerReport& c : w.containers) {
      for (const StrategyResult& s : c.results) {
        const recommend::Recommendation& rec = s.recommendation;
        const bool ok = rec.enoughData;
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", quoted(w.ns), w.kind,
                           quoted(w.name), quoted(c.name), w.replicas, c.dataPoints, s.strategy,
                           amounts(c.current), ok ? amounts(rec.resources) : ",,,",
                           ok ? percentField(cpuRequestChange(c.current, rec.resources)) : "",
                           ok ? percentField(memoryRequestChange(c.current, rec.resources)) : "",
                           ok ? "true" : "false", quoted(rec.reason));
      }
    }
  }
  return out;
}

}  // namespace attune::report
