#include "sim/serve/selectors.h"

#include <nlohmann/json.hpp>

namespace attune::sim::serve {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits on commas outside parentheses.
std::vector<std::string_view> splitTerms(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      std::string_view term = trim(text.substr(start, i - start));
      if (!term.empty()) out.push_back(term);
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return out;
}

std::unexpected<Error> syntax(std::string_view field, std::string_view term) {
  return fail(ErrorCode::kInvalidArgument,
              "unable to parse requirement \"" + std::string(term) + "\"", std::string(field));
}

}  // namespace

Result<api::LabelSelector> parseLabelSelector(std::string_view text) {
  api::LabelSelector out;
  for (std::string_view term : splitTerms(text)) {
    if (term.front() == '!') {
      std::string_view key = trim(term.substr(1));
      if (key.empty()) return syntax("labelSelector", term);
      out.matchExpressions.push_back({std::string(key), "DoesNotExist", {}});
      continue;
    }
    if (auto p = term.find("!="); p != std::string_view::npos) {
      out.matchExpressions.push_back(
          {std::string(trim(term.substr(0, p))), "NotIn", {std::string(trim(term.substr(p + 2)))}});
      continue;
    }
    if (auto p = term.find('='); p != std::string_view::npos) {
      std::string_view value = term.substr(p + 1);
      if (!value.empty() && value.front() == '=') value.remove_prefix(1);
      std::string key(trim(term.substr(0, p)));
      if (key.empty()) return syntax("labelSelector", term);
      out.matchLabels[key] = std::string(trim(value));
      continue;
    }
    if (auto open = term.find('('); open != std::string_view::npos) {
      if (term.back() != ')') return syntax("labelSelector", term);
      std::string_view head = trim(term.substr(0, open));
      const std::size_t space = head.rfind(' ');
      if (space == std::string_view::npos) return syntax("labelSelector", term);
      std::string_view op = head.substr(space + 1);
      std::string_view key = trim(head.substr(0, space));
      api::LabelSelectorRequirement r{std::string(key), "", {}};
      if (op == "in") {
        r.operator_ = "In";
      } else if (op == "notin") {
        r.operator_ = "NotIn";
      } else {
        return syntax("labelSelector", term);
      }
      std::string_view values = term.substr(open + 1, term.size() - open - 2);
      for (std::string_view v : splitTerms(values)) r.values.emplace_back(v);
      out.matchExpressions.push_back(std::move(r));
      continue;
    }
    out.matchExpressions.push_back({std::string(term), "Exists", {}});
  }
  return out;
}

Result<std::vector<FieldRequirement>> parseFieldSelector(std::string_view text) {
  std::vector<FieldRequirement> out;
  for (std::string_view term : splitTerms(text)) {
    FieldRequirement r;
    std::size_t p = term.find("!=");
    std::size_t valueAt = 0;
    if (p != std::string_view::npos) {
      r.equal = false;
      valueAt = p + 2;
    } else if (p = term.find("=="); p != std::string_view::npos) {
      valueAt = p + 2;
    } else if (p = term.find('='); p != std::string_view::npos) {
      valueAt = p + 1;
    } else {
      return syntax("fieldSelector", term);
    }
    r.path = std::string(trim(term.substr(0, p)));
    r.value = std::string(trim(term.substr(valueAt)));
    if (r.path.empty()) return syntax("fieldSelector", term);
    out.push_back(std::move(r));
  }
  return out;
}

bool fieldsMatch(const std::vector<FieldRequirement>& requirements, std::string_view objectJson) {
  if (requirements.empty()) return true;
  const nlohmann::json doc = nlohmann::json::parse(objectJson, nullptr, false);
  if (doc.is_discarded()) return false;
  for (const FieldRequirement& r : requirements) {
    const nlohmann::json* at = &doc;
    std::string_view path = r.path;
    while (at != nullptr && !path.empty()) {
      const std::size_t dot = path.find('.');
      const std::string key(path.substr(0, dot));
      path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
      at = at->is_object() && at->contains(key) ? &(*at)[key] : nullptr;
    }
    std::string value;
    if (at != nullptr && !at->is_null())
      value = at->is_string() ? at->get<std::string>() : at->dump();
    if ((value == r.value) != r.equal) return false;
  }
  return true;
}

}  // namespace attune::sim::serve
