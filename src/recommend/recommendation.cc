#include "recommend/recommendation.h"

namespace attune::recommend {

std::string explanationText(const Recommendation& r) {
  std::string text;
  for (const ExplanationStep& s : r.explanation) {
    if (!text.empty()) text += "; ";
    text += s.what;
    text += " = ";
    text += s.value;
  }
  return text;
}

}  // namespace attune::recommend
