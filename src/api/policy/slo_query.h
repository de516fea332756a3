// The template variables of an SLO guardrail's query (updateStrategy.sloGuardrails[].query), as
// the public API writes them: `{{ .Namespace }}`, `{{ .WorkloadName }}` and `{{ .PodName }}`,
// with or without the spaces inside the braces.
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

namespace attune::api {

// What the variables stand for when a guardrail is evaluated for one resized pod.
struct SloQueryScope {
  std::string namespace_;
  std::string workload;
  std::string pod;
};

// `query` with every variable replaced. An unterminated `{{`, or an action other than the three
// variables (a function, a pipeline, another field), is an error naming the action; the query
// is otherwise passed through unchanged (PromQL itself is not checked).
Result<std::string> renderSloQuery(std::string_view query, const SloQueryScope& scope);

}  // namespace attune::api
