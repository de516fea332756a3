#include "report/render_values.h"

#include <fmt/core.h>

#include <cmath>

#include "core/quantity.h"
#include "report/recommend_report.h"

namespace attune::report {

std::string cpuText(const std::optional<Millicores>& v) { return v ? formatCpu(*v) : "-"; }

std::string memoryText(const std::optional<Bytes>& v) { return v ? formatMemory(*v) : "-"; }

std::string shortMemoryText(const std::optional<Bytes>& v) {
  if (!v) return "-";
  constexpr std::int64_t kKi = 1024, kMi = kKi * 1024, kGi = kMi * 1024;
  const std::int64_t b = v->value();
  const auto up = [b](std::int64_t unit) { return (b + unit - 1) / unit; };
  if (b >= kGi && b % kGi == 0) return fmt::format("{}Gi", b / kGi);
  if (b >= kMi) return fmt::format("{}Mi", up(kMi));
  return fmt::format("{}Ki", up(kKi));
}

std::string percentText(const std::optional<double>& v) {
  if (!v) return "";
  const double r = std::round(*v);
  return fmt::format("{}{}%", r > 0 ? "+" : "", r == 0 ? 0.0 : r);
}

double rounded(double v, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

std::string notEnoughDataText(const recommend::Recommendation& r) {
  return "not enough data: " + r.reason;
}

std::optional<double> cpuRequestChange(const api::ResourceValues& current,
                                       const api::ResourceValues& recommended) {
  return changePercent(raw(current.cpuRequest), raw(recommended.cpuRequest));
}

std::optional<double> memoryRequestChange(const api::ResourceValues& current,
                                          const api::ResourceValues& recommended) {
  return changePercent(raw(current.memoryRequest), raw(recommended.memoryRequest));
}

}  // namespace attune::report
