// decodePolicyJson against decodePolicies on the same JSON text: the same policy whenever it
// reads one, and nothing when the decoder would read the object otherwise.
#include "api/policy/policy_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "api/policy/policy_codec.h"
#include "policy_test_util.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::decodeOne;
using testing::describe;

// What decodePolicies reads from `json`'s text, when it reads it without an error.
std::optional<DecodedPolicy> decoded(const Json& json) {
  std::vector<DecodedPolicy> docs = decodePolicies(json.dump());
  if (docs.size() != 1 || !docs[0].errors.empty() || !docs[0].policy) return std::nullopt;
  docs[0].policy->sources = {};
  return std::move(docs[0]);
}

Json jsonOf(const AttunePolicy& policy) { return Json::parse(encodePolicyJson(policy)); }

Json jsonOf(std::string_view yaml) {
  const DecodedPolicy doc = decodeOne(yaml);
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  return jsonOf(doc.policy.value_or(AttunePolicy{}));
}

// `json` read quickly gives what decodePolicies gives.
void expectSame(const Json& json) {
  const std::optional<DecodedPolicy> slow = decoded(json);
  ASSERT_TRUE(slow.has_value()) << json.dump();
  const std::optional<AttunePolicy> fast = decodePolicyJson(json);
  ASSERT_TRUE(fast.has_value()) << json.dump();
  EXPECT_EQ(*fast, *slow->policy) << json.dump();
}

TEST(PolicyJsonTest, ReadsEveryModelledFieldAsTheDecoderDoes) {
  expectSame(jsonOf(testing::kFullPolicy));
  AttunePolicy full = decodeOne(testing::kFullPolicy).policy.value_or(AttunePolicy{});
  applyDefaults(full);
  expectSame(jsonOf(full));
  expectSame(jsonOf(testing::defaultedMinimalPolicy()));

  expectSame(jsonOf(testing::builtInCodePolicy()));
}

TEST(PolicyJsonTest, ReadsTheShippedExamplesAsTheDecoderDoes) {
  const fs::path dir = attune::testing::sourceDir() / "examples" / "policies";
  int read = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const DecodedPolicy& doc : decodePolicies(text)) {
      ASSERT_TRUE(doc.policy.has_value()) << entry.path();
      const Json json = jsonOf(*doc.policy);
      SCOPED_TRACE(entry.path().string());
      if (doc.policy->preserved.empty()) {
        expectSame(json);
        ++read;
      } else {
        EXPECT_FALSE(decodePolicyJson(json).has_value());
      }
    }
  }
  EXPECT_GT(read, 0);
}

TEST(PolicyJsonTest, NullIsAnUnsetField) {
  Json json = jsonOf(testing::kMinimalPolicy);
  json["metadata"]["labels"] = nullptr;
  json["spec"]["cpu"] = nullptr;
  json["spec"]["metricsSource"]["historyWindow"] = nullptr;
  json["status"] = nullptr;
  expectSame(json);
}

TEST(PolicyJsonTest, DeclinesWhatTheDecoderReadsOtherwise) {
  const Json minimal = jsonOf(testing::kMinimalPolicy);
  // Each change, and whether decodePolicies still reads the policy (it then keeps or converts
  // what the quick read does not model, so the quick read must leave it to it).
  const std::vector<std::tuple<std::string, std::function<void(Json&)>, bool>> cases = {
      {"an unknown field", [](Json& j) { j["spec"]["bogus"] = 1; }, false},
      {"a preserved public field",
       [](Json& j) {
         j["status"]["recommendations"] = {
             {{"workload", "checkout"},
              {"containers", {{{"name", "app"}, {"explanation", {{"cpu", {{"overhead", 1}}}}}}}}}};
       },
       true},
      {"a CPU quantity written as a number", [](Json& j) { j["spec"]["cpu"]["minAllowed"] = 1; },
       true},
      {"a number for a string", [](Json& j) { j["metadata"]["name"] = 5; }, false},
      {"a string for a boolean",
       [](Json& j) { j["spec"]["metricsSource"]["prometheus"]["tls"]["insecureSkipVerify"] = "x"; },
       false},
      {"a fraction for an integer",
       [](Json& j) { j["spec"]["metricsSource"]["minimumDataPoints"] = 1.5; }, false},
      {"an integer past 32 bits",
       [](Json& j) { j["spec"]["metricsSource"]["minimumDataPoints"] = 1LL << 40; }, false},
      {"a malformed duration", [](Json& j) { j["spec"]["metricsSource"]["historyWindow"] = "5x"; },
       false},
      {"a time past the year 9999",
       [](Json& j) { j["status"]["lastReconcileTime"] = "9999-12-31T23:00:00-05:00"; }, false},
      // Read from the JSON text the key is a quoted string; the API client reads it as a plain
      // YAML scalar (kube/wire.cc), which is null there, and an error.
      {"a label key YAML reads as null", [](Json& j) { j["metadata"]["labels"]["null"] = "x"; },
       true},
      {"a label value that is not a string", [](Json& j) { j["metadata"]["labels"]["a"] = 1; },
       false},
      {"a list item that is not an object",
       [](Json& j) { j["spec"]["targetRef"]["selector"]["matchExpressions"] = {1}; }, false},
      {"an enum spelled otherwise", [](Json& j) { j["spec"]["updateStrategy"]["type"] = "auto"; },
       false},
      {"another apiVersion", [](Json& j) { j["apiVersion"] = "attune.io/v1"; }, false},
      {"no kind", [](Json& j) { j.erase("kind"); }, false},
  };
  for (const auto& [name, change, decoderReadsIt] : cases) {
    Json json = minimal;
    change(json);
    EXPECT_FALSE(decodePolicyJson(json).has_value()) << name;
    EXPECT_EQ(decoded(json).has_value(), decoderReadsIt) << name;
  }
  expectSame(minimal);  // and unchanged, it reads
}

}  // namespace
}  // namespace attune::api
