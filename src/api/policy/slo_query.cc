#include "api/policy/slo_query.h"

namespace attune::api {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<std::string> renderSloQuery(std::string_view query, const SloQueryScope& scope) {
  std::string out;
  out.reserve(query.size());
  std::size_t at = 0;
  while (at < query.size()) {
    const std::size_t open = query.find("{{", at);
    if (open == std::string_view::npos) {
      out.append(query.substr(at));
      break;
    }
    out.append(query.substr(at, open - at));
    const std::size_t close = query.find("}}", open + 2);
    if (close == std::string_view::npos) {
      return std::unexpected(
          Error{ErrorCode::kInvalidArgument, "unterminated \"{{\" in the query template", ""});
    }
    const std::string_view action = trim(query.substr(open + 2, close - open - 2));
    if (action == ".Namespace") {
      out.append(scope.namespace_);
    } else if (action == ".WorkloadName") {
      out.append(scope.workload);
    } else if (action == ".PodName") {
      out.append(scope.pod);
    } else {
      return std::unexpected(Error{ErrorCode::kInvalidArgument,
                                   "unknown template action \"{{ " + std::string(action) +
                                       " }}\"; the query may use {{ .Namespace }}, "
                                       "{{ .WorkloadName }} and {{ .PodName }}",
                                   ""});
    }
    at = close + 2;
  }
  return out;
}

}  // namespace attune::api
