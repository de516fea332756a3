#include "api/policy/attune_policy.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace attune::api {
namespace {

template <typename Enum, std::size_t N>
std::string_view nameOf(const std::array<std::string_view, N>& names, Enum v) {
  const auto i = static_cast<std::size_t>(v);
  return i < N ? names[i] : std::string_view();
}

constexpr std::array<std::string_view, 8> kKnownSidecars = {
    "istio-proxy", "linkerd-proxy",   "consul-dataplane", "kuma-dp",
    "vault-agent", "cloud-sql-proxy", "cloudsql-proxy",   "gce-proxy"};

}  // namespace

std::string_view toString(TargetKind v) { return nameOf(kTargetKindNames, v); }
std::string_view toString(UpdateMode v) { return nameOf(kUpdateModeNames, v); }
std::string_view toString(ControlledValues v) { return nameOf(kControlledValuesNames, v); }
std::string_view toString(PodAggregation v) { return nameOf(kPodAggregationNames, v); }
std::string_view toString(RecommendationStrategy v) {
  return nameOf(kRecommendationStrategyNames, v);
}
std::string_view toString(EvictionRanking v) { return nameOf(kEvictionRankingNames, v); }
std::string_view toString(ResizeResult v) { return nameOf(kResizeResultNames, v); }
std::string_view toString(ResizedResource v) { return nameOf(kResizedResourceNames, v); }
std::string_view toString(ResizeMethod v) { return nameOf(kResizeMethodNames, v); }
std::string_view toString(RuntimeProfile v) { return nameOf(kRuntimeProfileNames, v); }
std::string_view toString(SloComparison v) { return nameOf(kSloComparisonNames, v); }
std::string_view toString(ResizeFallback v) { return nameOf(kResizeFallbackNames, v); }

std::span<const std::string_view> knownSidecarContainers() { return kKnownSidecars; }

bool isExcludedContainer(const AttunePolicy& policy, std::string_view name) {
  const auto& listed = policy.spec.excludedContainers;
  if (std::find(listed.begin(), listed.end(), name) != listed.end()) return true;
  if (!policy.spec.excludeKnownSidecars.value_or(true)) return false;
  return std::find(kKnownSidecars.begin(), kKnownSidecars.end(), name) != kKnownSidecars.end();
}

std::optional<double> parsePercent(std::string_view text) {
  double whole = 0;
  double scale = 1;
  bool seenDigit = false;
  bool inFraction = false;
  bool fractionDigit = false;
  for (char c : text) {
    if (c == '.' && seenDigit && !inFraction) {
      inFraction = true;
    } else if (c >= '0' && c <= '9') {
      if (inFraction) {
        scale /= 10;
        whole += (c - '0') * scale;
        fractionDigit = true;
      } else {
        whole = whole * 10 + (c - '0');
      }
      seenDigit = true;
    } else {
      return std::nullopt;
    }
  }
  if (!seenDigit || (inFraction && !fractionDigit)) return std::nullopt;
  return whole;
}

std::optional<double> parseDecimal(std::string_view text) {
  if (text.empty() || text.front() == '+') return std::nullopt;
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace attune::api
