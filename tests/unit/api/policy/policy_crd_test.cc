// The CRD (deploy/base/crds/attune.io_attunepolicies.yaml) and Attune's own decoder + validator
// agree. The test walks the CRD's OpenAPI schema and, for every enum, minimum, maximum and required
// field, mutates a valid policy at that path and checks that checkPolicies() accepts the boundary
// values and rejects just-outside ones with an error at exactly that path. Subtrees of public
// fields that Attune accepts without implementing them (they decode with a warning) are skipped:
// the API server still checks them against this schema, Attune does not. Every schema default must
// also equal what applyDefaults() fills in. Every field of the CRD is in the schema tables, and
// exactly the extensions among them are described as such.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "api/policy/policy_codec.h"
#include "crd_schema.h"
#include "policy_test_util.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

using Json = nlohmann::json;

YAML::Node loadCrd() {
  return YAML::LoadFile(
      (attune::testing::sourceDir() / "deploy/base/crds/attune.io_attunepolicies.yaml").string());
}

const YAML::Node version(const YAML::Node& crd) { return crd["spec"]["versions"][0]; }

enum class Check { kEnum, kMinimum, kMaximum, kRequired, kDefault };

struct Constraint {
  Check check;
  std::string path;  // schema path; "[]" marks list items
  std::string type;  // the schema type of the field ("integer", "string", ...)
  YAML::Node value;  // enum list, bound or default
};

// Collects the constraints of `schema` (at `path`) and of everything below it.
void collect(const YAML::Node& schema, const std::string& path, std::vector<Constraint>& out) {
  const std::string type = schema["type"] ? schema["type"].as<std::string>() : "";
  if (schema["enum"]) out.push_back({Check::kEnum, path, type, schema["enum"]});
  if (schema["minimum"]) out.push_back({Check::kMinimum, path, type, schema["minimum"]});
  if (schema["maximum"]) out.push_back({Check::kMaximum, path, type, schema["maximum"]});
  if (schema["default"] && type != "object") {
    out.push_back({Check::kDefault, path, type, schema["default"]});
  }
  if (schema["required"]) {
    for (const auto& name : schema["required"]) {
      out.push_back({Check::kRequired, joinPath(path, name.as<std::string>()), "", {}});
    }
  }
  if (schema["properties"]) {
    for (const auto& entry : schema["properties"]) {
      collect(entry.second, joinPath(path, entry.first.as<std::string>()), out);
    }
  }
  if (schema["items"]) collect(schema["items"], path + "[]", out);
}

std::vector<Constraint> constraints() {
  std::vector<Constraint> out;
  collect(version(loadCrd())["schema"]["openAPIV3Schema"], "", out);
  return out;
}

// Splits "a.b[0].c" into {"a", "b", "[0]", "c"}, with "[]" read as "[0]".
std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  std::string current;
  for (char c : path) {
    if (c == '.' || c == '[') {
      if (!current.empty()) out.push_back(current);
      current = c == '[' ? "[" : "";
    } else if (c == ']') {
      out.push_back("[0]");
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

// The JSON value at `path`, creating missing parents when `create`; nullptr when absent.
Json* at(Json& root, const std::string& path, bool create) {
  Json* node = &root;
  for (const std::string& segment : segments(path)) {
    if (segment == "[0]") {
      if (!node->is_array() || node->empty()) {
        if (!create) return nullptr;
        *node = Json::array({Json::object()});
      }
      node = &(*node)[0];
    } else {
      if (!node->is_object() || !node->contains(segment)) {
        if (!create) return nullptr;
        if (!node->is_object()) *node = Json::object();
      }
      node = &(*node)[segment];
    }
  }
  return node;
}

// "a[].b" → "a[0].b".
std::string concrete(std::string path) {
  for (auto p = path.find("[]"); p != std::string::npos; p = path.find("[]"))
    path.replace(p, 2, "[0]");
  return path;
}

std::string parentOf(const std::string& path) { return path.substr(0, path.find_last_of('.')); }
std::string leafOf(const std::string& path) { return path.substr(path.find_last_of('.') + 1); }

bool isUnder(std::string_view path, std::string_view prefix) {
  return path.starts_with(prefix) &&
         (path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[');
}

class PolicyCrdTest : public ::testing::Test {
 protected:
  PolicyCrdTest()
      : base_(Json::parse(encodePolicyJson(*testing::decodeOne(testing::kFullPolicy).policy))) {}

  struct Outcome {
    bool skipped = false;  // the path lies in a public-only subtree (decoded with a warning)
    std::vector<PolicyDiagnostic> errors;
  };

  Outcome run(const Json& doc, const std::string& path) {
    const auto results = checkPolicies(doc.dump());
    EXPECT_EQ(results.size(), 1u);
    Outcome out;
    if (results.empty()) return out;
    for (const auto& w : results[0].warnings) {
      if (w.error.code == ErrorCode::kUnsupported && isUnder(path, w.error.field))
        out.skipped = true;
    }
    out.errors = results[0].errors;
    return out;
  }

  // Sets `path` to `value` in a copy of the base policy and checks it.
  Outcome withValue(const std::string& path, const Json& value) {
    Json doc = base_;
    *at(doc, path, true) = value;
    return run(doc, concrete(path));
  }

  static bool hasErrorAt(const Outcome& o, const std::string& path) {
    return testing::find(o.errors, concrete(path)) != nullptr;
  }

  // Expects `good` accepted and `bad` rejected at `path`; returns false if the path was skipped.
  bool expectBoundary(const std::string& path, const Json& good, const Json& bad) {
    const Outcome accepted = withValue(path, good);
    if (accepted.skipped) return false;
    EXPECT_FALSE(hasErrorAt(accepted, path)) << path << " = " << good.dump() << " should be valid\n"
                                             << testing::describe(accepted.errors);
    const Outcome rejected = withValue(path, bad);
    EXPECT_TRUE(hasErrorAt(rejected, path))
        << path << " = " << bad.dump() << " should be rejected\n"
        << testing::describe(rejected.errors);
    return true;
  }

  Json base_;
};

Json number(const YAML::Node& n, double delta = 0) {
  const double v = n.as<double>() + delta;
  if (v == static_cast<double>(static_cast<std::int64_t>(v))) return static_cast<std::int64_t>(v);
  return v;
}

TEST(PolicyCrdManifestTest, DeclaresTheResource) {
  const YAML::Node crd = loadCrd();
  EXPECT_EQ(crd["apiVersion"].as<std::string>(), "apiextensions.k8s.io/v1");
  EXPECT_EQ(crd["kind"].as<std::string>(), "CustomResourceDefinition");
  EXPECT_EQ(crd["metadata"]["name"].as<std::string>(), "attunepolicies.attune.io");
  const YAML::Node spec = crd["spec"];
  EXPECT_EQ(spec["group"].as<std::string>(), "attune.io");
  EXPECT_EQ(spec["scope"].as<std::string>(), "Namespaced");
  EXPECT_EQ(spec["names"]["kind"].as<std::string>(), "AttunePolicy");
  EXPECT_EQ(spec["names"]["plural"].as<std::string>(), "attunepolicies");
  EXPECT_EQ(spec["names"]["shortNames"][0].as<std::string>(), "ap");
  ASSERT_EQ(spec["versions"].size(), 1u);
  const YAML::Node v = version(crd);
  EXPECT_EQ(v["name"].as<std::string>(), "v1alpha1");
  EXPECT_TRUE(v["served"].as<bool>());
  EXPECT_TRUE(v["storage"].as<bool>());
  EXPECT_TRUE(v["subresources"]["status"].IsMap());
  std::vector<std::string> columns;
  for (const auto& c : v["additionalPrinterColumns"])
    columns.push_back(c["name"].as<std::string>());
  // The public operator's columns (its CRD in ../shared/fixtures/attune-public-crds/).
  EXPECT_EQ(columns, (std::vector<std::string>{"Type", "Workloads", "Recs", "Resized", "Ready",
                                               "Age", "CPU Saved", "Mem Saved"}));
}

TEST(PolicyCrdManifestTest, DescribesExactlyTheExtensionsAsExtensions) {
  constexpr std::string_view kMarker = "Extension (not in the public attune.io API): ";
  int extensions = 0;
  for (const testing::CrdObject& object :
       testing::crdObjects(version(loadCrd())["schema"]["openAPIV3Schema"])) {
    for (const auto& entry : object.schema["properties"]) {
      const std::string name = entry.first.as<std::string>();
      SCOPED_TRACE(joinPath(object.path, name) + " (" + object.owner + "." + name + ")");
      const auto known = internal::findField(object.owner, name);
      ASSERT_TRUE(known) << "the CRD has a field no schema table lists";
      const YAML::Node description = entry.second["description"];
      const bool marked = description && description.as<std::string>().starts_with(kMarker);
      if (known->origin == internal::FieldOrigin::kExtension && !object.underExtension) {
        EXPECT_TRUE(marked) << "an extension must be described as one";
        ++extensions;
      } else if (known->origin != internal::FieldOrigin::kExtension) {
        EXPECT_FALSE(marked) << "only extensions are described as extensions";
      }
    }
  }
  EXPECT_GT(extensions, 0);
}

TEST_F(PolicyCrdTest, EnumsAgreeWithTheDecoderAndValidator) {
  int checked = 0;
  for (const Constraint& c : constraints()) {
    if (c.check != Check::kEnum) continue;
    SCOPED_TRACE(c.path);
    const bool integer = c.type == "integer";
    bool skipped = false;
    std::int64_t largest = 0;
    for (const auto& v : c.value) {
      const Json value = integer ? Json(v.as<std::int64_t>()) : Json(v.as<std::string>());
      if (integer) largest = std::max(largest, v.as<std::int64_t>());
      const Outcome o = withValue(c.path, value);
      skipped = skipped || o.skipped;
      if (!o.skipped) {
        EXPECT_FALSE(hasErrorAt(o, c.path)) << value.dump() << "\n" << testing::describe(o.errors);
      }
    }
    if (skipped) continue;
    const Outcome bad = withValue(c.path, integer ? Json(largest + 1) : Json("NotAValue"));
    EXPECT_TRUE(hasErrorAt(bad, c.path)) << testing::describe(bad.errors);
    ++checked;
  }
  EXPECT_EQ(checked, 18);  // with schedule.daysOfWeek, runtimeProfile, a guardrail's comparison
                           // and resizeMethod
}

TEST_F(PolicyCrdTest, BoundsAgreeWithTheValidator) {
  int checked = 0;
  for (const Constraint& c : constraints()) {
    SCOPED_TRACE(c.path);
    if (c.check == Check::kMinimum) {
      checked += expectBoundary(c.path, number(c.value), number(c.value, -1));
    } else if (c.check == Check::kMaximum) {
      checked += expectBoundary(c.path, number(c.value), number(c.value, +1));
    }
  }
  EXPECT_EQ(checked, 30);
}

TEST_F(PolicyCrdTest, RequiredFieldsAreRequired) {
  int checked = 0;
  for (const Constraint& c : constraints()) {
    if (c.check != Check::kRequired) continue;
    SCOPED_TRACE(c.path);
    Json doc = base_;
    Json* parent = at(doc, parentOf(c.path), false);
    if (parent == nullptr || !parent->is_object() || !parent->contains(leafOf(c.path))) continue;
    parent->erase(leafOf(c.path));
    const Outcome o = run(doc, concrete(c.path));
    if (o.skipped) continue;
    const std::string path = concrete(c.path);
    const bool reported = std::any_of(o.errors.begin(), o.errors.end(),
                                      [&](const auto& e) { return isUnder(e.error.field, path); });
    EXPECT_TRUE(reported) << testing::describe(o.errors);
    ++checked;
  }
  EXPECT_EQ(checked, 11);
}

TEST_F(PolicyCrdTest, SchemaDefaultsMatchApplyDefaults) {
  AttunePolicy policy =
      *testing::decodeOne(std::string(testing::kMinimalPolicy) +
                          "  updateStrategy:\n"
                          "    canary: {percentage: 10, observationPeriod: 30m}\n")
           .policy;
  applyDefaults(policy);
  Json defaulted = Json::parse(encodePolicyJson(policy));
  int checked = 0;
  for (const Constraint& c : constraints()) {
    if (c.check != Check::kDefault) continue;
    SCOPED_TRACE(c.path);
    const Json* value = at(defaulted, c.path, false);
    ASSERT_NE(value, nullptr) << "applyDefaults leaves it unset";
    const std::string text = value->is_string() ? value->get<std::string>() : value->dump();
    EXPECT_EQ(text, c.value.as<std::string>());
    ++checked;
  }
  EXPECT_EQ(checked, 3);  // paused, weight, strategy: the inherited fields have none
}

}  // namespace
}  // namespace attune::api
