// What a strategy returns: recommended requests and limits with the reasoning behind them.
#pragma once

#include <string>
#include <vector>

#include "api/k8s/resource_values.h"

namespace attune::recommend {

enum class Resource { kCpu, kMemory };

// One step of the reasoning, in order: `what` was done and the `value` it gave, e.g.
// {"cpu: p95 over 168h", "412m"}, {"cpu: × (1 + 20%)", "495m"},
// {"cpu: change +8% < 10%: kept current", "450m"}.
struct ExplanationStep {
  std::string what;
  std::string value;
  bool operator==(const ExplanationStep&) const = default;
};

struct Recommendation {
  // The recommended values; an unset limit means "no limit". All unset unless enoughData.
  api::ResourceValues resources;
  bool enoughData = false;
  std::string reason;  // why there is no recommendation ("12 of 48 data points"); else empty
  std::vector<ExplanationStep> explanation;
};

// The explanation as one paragraph: "what = value; what = value".
std::string explanationText(const Recommendation& r);

}  // namespace attune::recommend
