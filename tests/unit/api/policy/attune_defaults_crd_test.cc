// Our AttuneDefaults and AttuneNamespaceDefaults CRDs (deploy/base/crds/) against the public
// operator's (../shared/fixtures/attune-public-crds/): the same names, scope and printer columns;
// every public field at the same path with the same type, enum and bounds; every other field
// described as an extension; no schema defaults (the API server would fill them in and hide the
// tiers below). The AttunePolicy CRD must not default the fields a policy inherits either.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "api/policy/attune_defaults.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

constexpr std::string_view kExtensionMarker = "Extension (not in the public attune.io API): ";

YAML::Node ours(const std::string& file) {
  return YAML::LoadFile((attune::testing::sourceDir() / "deploy/base/crds" / file).string());
}

std::string text(const YAML::Node& n) { return n ? YAML::Dump(n) : std::string("<none>"); }

// Compares the schema `mine` with `reference` at `path`; counts the public fields compared.
void compare(const YAML::Node& mine, const YAML::Node& reference, const std::string& path,
             int& compared) {
  SCOPED_TRACE(path.empty() ? std::string("the document root") : path);
  for (const char* key :
       {"type", "enum", "minimum", "maximum", "format", "pattern", "x-kubernetes-int-or-string"}) {
    EXPECT_EQ(text(mine[key]), text(reference[key])) << key;
  }
  EXPECT_FALSE(mine["default"] && !mine["default"].IsMap()) << "a schema default";
  const YAML::Node mineProps = mine["properties"];
  const YAML::Node refProps = reference["properties"];
  if (refProps) {
    for (const auto& entry : refProps) {
      const std::string name = entry.first.as<std::string>();
      const std::string childPath = path.empty() ? name : path + "." + name;
      if (!mineProps || !mineProps[name]) {
        ADD_FAILURE() << "the public CRD has " << childPath << ", ours does not";
        continue;
      }
      ++compared;
      compare(mineProps[name], entry.second, childPath, compared);
    }
  }
  if (mineProps) {
    for (const auto& entry : mineProps) {
      const std::string name = entry.first.as<std::string>();
      if (refProps && refProps[name]) continue;
      const YAML::Node description = entry.second["description"];
      EXPECT_TRUE(description && description.as<std::string>().starts_with(kExtensionMarker))
          << (path.empty() ? name : path + "." + name)
          << " is not in the public CRD and not described as an extension";
    }
  }
  if (reference["items"]) {
    ASSERT_TRUE(mine["items"]) << "a list in the public CRD";
    compare(mine["items"], reference["items"], path + "[]", compared);
  }
}

class DefaultsCrdTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DefaultsCrdTest, MatchesThePublicCrd) {
  ATTUNE_REQUIRE_SHARED_DIR(shared);
  const YAML::Node mine = ours(GetParam());
  const YAML::Node reference =
      YAML::LoadFile((shared / "fixtures/attune-public-crds" / GetParam()).string());
  EXPECT_EQ(mine["metadata"]["name"].as<std::string>(),
            reference["metadata"]["name"].as<std::string>());
  EXPECT_EQ(mine["spec"]["group"].as<std::string>(), "attune.io");
  EXPECT_EQ(mine["spec"]["scope"].as<std::string>(), reference["spec"]["scope"].as<std::string>());
  for (const char* key : {"kind", "listKind", "plural", "singular", "shortNames", "categories"}) {
    EXPECT_EQ(text(mine["spec"]["names"][key]), text(reference["spec"]["names"][key])) << key;
  }
  ASSERT_EQ(mine["spec"]["versions"].size(), 1u);
  const YAML::Node v = mine["spec"]["versions"][0];
  const YAML::Node rv = reference["spec"]["versions"][0];
  EXPECT_EQ(v["name"].as<std::string>(), rv["name"].as<std::string>());
  EXPECT_TRUE(v["served"].as<bool>());
  EXPECT_TRUE(v["storage"].as<bool>());
  const auto columns = [](const YAML::Node& list) {
    std::vector<std::string> out;
    for (const auto& c : list) {
      out.push_back(c["name"].as<std::string>() + " " + c["type"].as<std::string>() + " " +
                    c["jsonPath"].as<std::string>());
    }
    return out;
  };
  EXPECT_EQ(columns(v["additionalPrinterColumns"]), columns(rv["additionalPrinterColumns"]));
  int compared = 0;
  compare(v["schema"]["openAPIV3Schema"], rv["schema"]["openAPIV3Schema"], "", compared);
  EXPECT_GT(compared, 100);
}

TEST_P(DefaultsCrdTest, KindMatchesTheDecoder) {
  const YAML::Node mine = ours(GetParam());
  const std::string kind = mine["spec"]["names"]["kind"].as<std::string>();
  EXPECT_TRUE(isDefaultsKind(kind));
  EXPECT_EQ(mine["spec"]["scope"].as<std::string>(),
            kind == kDefaultsKind ? "Cluster" : "Namespaced");
}

INSTANTIATE_TEST_SUITE_P(BothKinds, DefaultsCrdTest,
                         ::testing::Values("attune.io_attunedefaults.yaml",
                                           "attune.io_attunenamespacedefaults.yaml"));

// The fields a policy inherits must stay unset in a stored policy until the merge.
TEST(PolicyCrdInheritanceTest, InheritedFieldsHaveNoSchemaDefault) {
  const YAML::Node spec =
      ours("attune.io_attunepolicies.yaml")["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
                                           ["properties"]["spec"]["properties"];
  int checked = 0;
  const std::function<void(const YAML::Node&, const std::string&)> walk =
      [&](const YAML::Node& schema, const std::string& path) {
        ++checked;
        EXPECT_FALSE(schema["default"]) << path << " has a schema default";
        if (schema["properties"]) {
          for (const auto& e : schema["properties"]) {
            walk(e.second, path + "." + e.first.as<std::string>());
          }
        }
        if (schema["items"]) walk(schema["items"], path + "[]");
      };
  for (const char* field :
       {"metricsSource", "cpu", "memory", "updateStrategy", "excludeKnownSidecars"}) {
    walk(spec[field], std::string("spec.") + field);
  }
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace attune::api
