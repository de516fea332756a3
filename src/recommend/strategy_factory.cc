#include "recommend/adaptive_strategy.h"
#include "recommend/attune_strategy.h"
#include "recommend/cruisekube_strategy.h"
#include "recommend/krr_strategy.h"
#include "recommend/strategy.h"
#include "recommend/vpa_strategy.h"

namespace attune::recommend {

Result<StrategyPtr> makeStrategy(std::string_view name) {
  if (name == "adaptive") return makeAdaptiveStrategy();
  if (name == "attune") return makeAttuneStrategy();
  if (name == "cruisekube") return makeCruisekubeStrategy();
  if (name == "vpa") return makeVpaStrategy();
  if (name == "krr") return makeKrrStrategy();
  return fail(ErrorCode::kInvalidArgument, "unknown strategy \"" + std::string(name) +
                                               "\" (adaptive, attune, cruisekube, vpa, krr)");
}

}  // namespace attune::recommend
