// Renderers of a RecommendReport: an aligned text table, a JSON or YAML document, and CSV.
// Each returns the whole output, ending with a newline. Pure; the document layout is described
// in docs/recommend.md and is stable (field order and names do not change between runs).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/recommend_report.h"

namespace attune::report {

// Per workload and container: current requests/limits and, per strategy, the recommended
// request/limit with the request's change; then the totals per strategy.
std::string renderTable(const RecommendReport& r);
// kind RecommendationReport: parameters, workloads → containers → per-strategy
// recommendations with their explanation steps, totals.
std::string renderJson(const RecommendReport& r);
std::string renderYaml(const RecommendReport& r);
// One row per (workload, container, strategy); amounts in millicores and bytes.
std::string renderCsv(const RecommendReport& r);

// A JSON document as block YAML, keys in the document's order; strings are double-quoted so
// that "1" or "null" keep their type, numbers and booleans are spelled as in JSON.
std::string renderDocumentYaml(const nlohmann::ordered_json& document);

}  // namespace attune::report
