// decodePolicies(): YAML/JSON documents → AttunePolicy, on top of PolicyReader and the field
// lists of policy_fields.h; checkPolicies().
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>

#include "api/policy/policy_codec.h"
#include "api/policy/policy_fields.h"
#include "api/policy/policy_reader.h"
#include "api/policy/policy_yaml.h"
#include "api/yaml/yaml_stream.h"

namespace attune::api {
namespace {

using internal::PolicyReader;
using YAML::Node;
using Path = std::string;

template <typename T>
void readStruct(PolicyReader& r, const Node& n, const Path& p, T& out);

// A visitor for internal::fields(): collects one struct's fields for PolicyReader::object().
class FieldCollector {
 public:
  explicit FieldCollector(PolicyReader& r) : r_(r) {}

  void type(std::string_view type) { type_ = type; }
  template <typename T>
  void operator()(const char* name, T& member) {
    fields_.push_back(r_.field(name, member));
  }
  void operator()(const char* name, StringMap& member) {
    add(name, [&r = r_, &member](const Node& n, const Path& p) { r.stringMap(n, p, member); });
  }
  template <typename T>
  void object(const char* name, T& member) {
    add(name, [&r = r_, &member](const Node& n, const Path& p) { readStruct(r, n, p, member); });
  }
  template <typename T>
  void object(const char* name, std::optional<T>& member) {
    add(name, [&r = r_, &member](const Node& n, const Path& p) {
      readStruct(r, n, p, member.emplace());
    });
  }
  template <typename T>
  void list(const char* name, std::vector<T>& member) {
    add(name, [&r = r_, &member](const Node& n, const Path& p) {
      r.objects<T>(n, p, member,
                   [&r](const Node& item, const Path& ip, T& t) { readStruct(r, item, ip, t); });
    });
  }
  template <typename Body>
  void inlined(const char* name, std::string_view type, Body body) {
    add(name, [&r = r_, type, body](const Node& n, const Path& p) {
      FieldCollector inner(r);
      body(inner);
      r.object(n, p, type, inner.fields_);
    });
  }

  // Reads `node` at `path` with the collected fields.
  void read(const Node& node, const Path& path) { r_.object(node, path, type_, fields_); }
  void add(std::string_view name, PolicyReader::ReadFn read) {
    fields_.push_back({name, std::move(read)});
  }

 private:
  PolicyReader& r_;
  std::string_view type_;
  std::vector<PolicyReader::Field> fields_;
};

template <typename T>
void readStruct(PolicyReader& r, const Node& n, const Path& p, T& out) {
  FieldCollector collector(r);
  internal::fields(collector, out);
  collector.read(n, p);
}

// The value of `key` in mapping `map`, if present.
std::optional<Node> lookup(const Node& map, std::string_view key) {
  for (const auto& entry : map) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
  }
  return std::nullopt;
}

// Checks that a document declares `field: expected`; reports and returns false otherwise.
bool expectHeader(PolicyReader& r, const Node& doc, const char* field, std::string_view expected) {
  const auto value = lookup(doc, field);
  if (!value) {
    r.error(doc, field, ErrorCode::kInvalidArgument, "required");
    return false;
  }
  std::string text;
  r.read(*value, field, text);
  if (text == expected) return true;
  if (!text.empty()) {
    r.error(*value, field, ErrorCode::kInvalidArgument,
            "must be " + std::string(expected) + ", got \"" + text + "\"");
  }
  return false;
}

DecodedPolicy decodeDocument(const Node& doc, int index) {
  DecodedPolicy out;
  out.documentIndex = index;
  out.line = internal::positionOf(doc).line;
  AttunePolicy policy;
  PolicyReader r(policy, out.errors, out.warnings);
  if (!doc.IsMap()) {
    r.error(doc, "", ErrorCode::kInvalidArgument, "a policy document must be a mapping");
    return out;
  }
  const bool apiVersionOk = expectHeader(r, doc, "apiVersion", kPolicyApiVersion);
  const bool kindOk = expectHeader(r, doc, "kind", kPolicyKind);
  if (!apiVersionOk || !kindOk) return out;

  FieldCollector collector(r);
  internal::fields(collector, policy);
  collector.add("apiVersion", [](const Node&, const Path&) {});  // checked above
  collector.add("kind", [](const Node&, const Path&) {});
  collector.read(doc, "");
  // Canonical order, so that a policy equals its re-decoded encoding (which may move fields).
  std::sort(policy.preserved.begin(), policy.preserved.end(),
            [](const PreservedField& a, const PreservedField& b) { return a.path < b.path; });
  out.policy = std::move(policy);
  return out;
}

bool isList(const Node& doc) {
  if (!doc.IsMap()) return false;
  const auto kind = lookup(doc, "kind");
  return kind && kind->IsScalar() &&
         (kind->Scalar() == "List" || kind->Scalar() == "AttunePolicyList");
}

void decodeList(const Node& doc, int index, std::vector<DecodedPolicy>& out) {
  const auto items = lookup(doc, "items");
  if (!items || items->IsNull()) return;
  if (!items->IsSequence()) {
    DecodedPolicy& bad = out.emplace_back();
    bad.documentIndex = index;
    bad.line = internal::positionOf(doc).line;
    const SourcePosition pos = internal::positionOf(*items);
    bad.errors.push_back(
        {Error{ErrorCode::kInvalidArgument, "must be a list", "items"}, pos.line, pos.column});
    return;
  }
  for (const Node& item : *items) out.push_back(decodeDocument(item, index));
}

DecodedPolicy streamError(std::string message, int line, int column) {
  DecodedPolicy out;
  out.errors.push_back({Error{ErrorCode::kInvalidArgument, std::move(message), ""}, line, column});
  out.line = line;
  return out;
}

// True if `path` is `prefix` or lies under it.
bool isUnder(std::string_view path, std::string_view prefix) {
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

}  // namespace

std::vector<DecodedPolicy> decodePolicies(std::string_view yamlOrJson) {
  std::vector<DecodedPolicy> out;
  try {
    const std::vector<Node> docs = internal::loadDocuments(std::string(yamlOrJson));
    for (std::size_t i = 0; i < docs.size(); ++i) {
      if (docs[i].IsNull()) continue;
      if (isList(docs[i])) {
        decodeList(docs[i], static_cast<int>(i), out);
      } else {
        out.push_back(decodeDocument(docs[i], static_cast<int>(i)));
      }
    }
  } catch (const YAML::Exception& e) {
    const bool known = !e.mark.is_null();
    return {streamError("invalid YAML: " + e.msg, known ? e.mark.line + 1 : 0,
                        known ? e.mark.column + 1 : 0)};
  } catch (const std::exception& e) {
    return {streamError(std::string("cannot decode policy: ") + e.what(), 0, 0)};
  }
  return out;
}

DecodedPolicy decodePolicyNode(const YAML::Node& doc, int documentIndex) {
  try {
    return decodeDocument(doc, documentIndex);
  } catch (const std::exception& e) {
    const SourcePosition pos = internal::positionOf(doc);
    DecodedPolicy out =
        streamError(std::string("cannot decode policy: ") + e.what(), pos.line, pos.column);
    out.documentIndex = documentIndex;
    return out;
  }
}

std::vector<DecodedPolicy> checkPolicies(std::string_view yamlOrJson) {
  std::vector<DecodedPolicy> results = decodePolicies(yamlOrJson);
  for (DecodedPolicy& result : results) {
    if (!result.policy) continue;
    AttunePolicy defaulted = *result.policy;
    applyDefaults(defaulted);
    std::vector<std::string> failedPaths;
    for (const PolicyDiagnostic& e : result.errors) failedPaths.push_back(e.error.field);
    for (PolicyDiagnostic& e : validatePolicy(defaulted)) {
      const bool alreadyReported =
          std::any_of(failedPaths.begin(), failedPaths.end(), [&](const std::string& failed) {
            return !failed.empty() && isUnder(e.error.field, failed);
          });
      if (!alreadyReported) result.errors.push_back(std::move(e));
    }
    for (PolicyDiagnostic& w : policyWarnings(defaulted)) result.warnings.push_back(std::move(w));
    sortBySourceLine(result.errors);
    sortBySourceLine(result.warnings);
  }
  return results;
}

}  // namespace attune::api
