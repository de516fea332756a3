// Value formatting shared by the recommendation report renderers (internal to src/report/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/policy/attune_policy.h"
#include "core/units.h"
#include "recommend/recommendation.h"

namespace attune::report {

// The raw integer of an optional amount (millicores or bytes).
template <typename Tag>
std::optional<std::int64_t> raw(const std::optional<ResourceAmount<Tag>>& v) {
  return v ? std::optional<std::int64_t>(v->value()) : std::nullopt;
}

// Canonical Kubernetes quantities, "-" when unset.
std::string cpuText(const std::optional<Millicores>& v);
std::string memoryText(const std::optional<Bytes>& v);
// Short memory for tables: whole Gi when exact, else Mi (Ki below 1Mi) rounded up; "-" unset.
std::string shortMemoryText(const std::optional<Bytes>& v);
// "+12%", "-40%", "0%"; empty when unset.
std::string percentText(const std::optional<double>& v);
// `v` rounded to `digits` decimals (stable numbers in documents).
double rounded(double v, int digits);
// "not enough data: <reason>" for a recommendation without values.
std::string notEnoughDataText(const recommend::Recommendation& r);
// Change of the recommended request against the current one, in percent.
std::optional<double> cpuRequestChange(const api::ResourceValues& current,
                                       const api::ResourceValues& recommended);
std::optional<double> memoryRequestChange(const api::ResourceValues& current,
                                          const api::ResourceValues& recommended);

}  // namespace attune::report
