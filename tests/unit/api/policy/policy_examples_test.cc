// Every shipped example, and policies written for the public Attune operator, must validate.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "api/policy/policy_codec.h"
#include "policy_test_util.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

namespace fs = std::filesystem;
using testing::describe;

std::vector<fs::path> yamlFilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(PolicyExamplesTest, EveryExampleValidatesWithoutWarnings) {
  const auto files = yamlFilesIn(attune::testing::sourceDir() / "examples" / "policies");
  ASSERT_GE(files.size(), 5u);
  std::set<UpdateMode> modes;
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const auto docs = checkPolicies(attune::testing::readFile(file));
    ASSERT_EQ(docs.size(), 1u);
    EXPECT_TRUE(docs[0].errors.empty()) << describe(docs[0].errors);
    EXPECT_TRUE(docs[0].warnings.empty()) << describe(docs[0].warnings);
    ASSERT_TRUE(docs[0].policy);
    AttunePolicy defaulted = *docs[0].policy;
    applyDefaults(defaulted);
    modes.insert(*defaulted.spec.updateStrategy.type);
  }
  EXPECT_EQ(modes.size(), 5u) << "one example per mode";
}

TEST(PolicyExamplesTest, PublicAttunePoliciesValidateUnchanged) {
  const auto files =
      yamlFilesIn(attune::testing::sourceDir() / "tests/unit/api/policy/testdata/public");
  ASSERT_GE(files.size(), 5u);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const auto docs = checkPolicies(attune::testing::readFile(file));
    ASSERT_EQ(docs.size(), 1u);
    EXPECT_TRUE(docs[0].errors.empty()) << describe(docs[0].errors);
    for (const auto& w : docs[0].warnings) {
      EXPECT_EQ(w.error.code, ErrorCode::kUnsupported)
          << "only public-but-unimplemented fields " << w.error.toString();
    }
    // And they survive a defaulting and encoding round trip.
    AttunePolicy defaulted = *docs[0].policy;
    applyDefaults(defaulted);
    const auto again = decodePolicies(encodePolicyYaml(defaulted));
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].policy, defaulted);
  }
}

TEST(PolicyExamplesTest, PublicSloExampleKeepsItsGuardrails) {
  const auto docs = checkPolicies(attune::testing::readFile(
      attune::testing::sourceDir() / "tests/unit/api/policy/testdata/public/slo-guardrails.yaml"));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_TRUE(docs[0].warnings.empty()) << describe(docs[0].warnings);
  ASSERT_EQ(docs[0].policy->spec.updateStrategy.sloGuardrails.size(), 2u);
  EXPECT_NE(encodePolicyYaml(*docs[0].policy).find("name: error-rate"), std::string::npos);
}

TEST(PolicyExamplesTest, PublicStartupBoostExampleHasNoWarning) {
  const auto docs = checkPolicies(attune::testing::readFile(
      attune::testing::sourceDir() / "tests/unit/api/policy/testdata/public/startup-boost.yaml"));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_TRUE(docs[0].errors.empty()) << describe(docs[0].errors);
  EXPECT_TRUE(docs[0].warnings.empty()) << describe(docs[0].warnings);
  ASSERT_TRUE(docs[0].policy->spec.cpu.startupBoost);
  EXPECT_EQ(docs[0].policy->spec.cpu.startupBoost->multiplier, "3.0");
}

}  // namespace
}  // namespace attune::api
