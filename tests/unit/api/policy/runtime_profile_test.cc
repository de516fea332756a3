// spec.runtimeProfile: decoded as a modeled field (no "no effect" warning), its memory defaults
// filled only where the policy and the defaults tiers leave a field unset, and the warning
// against live memory decreases.
#include "api/policy/runtime_profile.h"

#include <gtest/gtest.h>

#include <string>

#include "api/policy/attune_defaults.h"
#include "api/policy/policy_codec.h"
#include "api/policy/policy_defaults.h"
#include "policy_test_util.h"
#include "support/shared_dir.h"

namespace attune::api {
namespace {

using testing::decodeOne;
using testing::describe;
using testing::expectOnly;

// kMinimalPolicy with `memory` (lines of spec.memory, indented by four spaces; may be empty) and
// runtimeProfile `profile` (none when empty).
std::string policyYaml(std::string_view profile, std::string_view memory = {}) {
  std::string out(testing::kMinimalPolicy);
  if (!profile.empty()) out += "  runtimeProfile: " + std::string(profile) + "\n";
  if (!memory.empty()) out += "  memory:\n" + std::string(memory);
  return out;
}

// The policy as checkPolicies() sees it: decoded cleanly, then defaulted.
AttunePolicy defaulted(std::string_view yaml) {
  DecodedPolicy doc = decodeOne(yaml);
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  AttunePolicy p = doc.policy.value_or(AttunePolicy{});
  applyDefaults(p);
  return p;
}

TEST(RuntimeProfileTest, IsDecodedWithoutAWarningAndRoundTrips) {
  for (std::string_view name : kRuntimeProfileNames) {
    SCOPED_TRACE(name);
    const DecodedPolicy doc = decodeOne(policyYaml(name));
    EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
    EXPECT_TRUE(doc.warnings.empty()) << describe(doc.warnings);
    ASSERT_TRUE(doc.policy && doc.policy->spec.runtimeProfile);
    EXPECT_EQ(toString(*doc.policy->spec.runtimeProfile), name);
    EXPECT_TRUE(doc.policy->preserved.empty());
    const std::string yaml = encodePolicyYaml(*doc.policy);
    EXPECT_NE(yaml.find("runtimeProfile: " + std::string(name)), std::string::npos) << yaml;
    const auto again = decodePolicies(yaml);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].policy, doc.policy);
  }
}

TEST(RuntimeProfileTest, AnUnknownProfileIsAnErrorAtItsPathAndLine) {
  const DecodedPolicy doc = decodeOne(policyYaml("ruby"));
  ASSERT_EQ(doc.errors.size(), 1u) << describe(doc.errors);
  EXPECT_EQ(doc.errors[0].error.field, "spec.runtimeProfile");
  EXPECT_EQ(doc.errors[0].line, 13);
  for (std::string_view name : kRuntimeProfileNames) {
    EXPECT_NE(doc.errors[0].error.message.find(name), std::string::npos)
        << doc.errors[0].error.message;
  }
}

TEST(RuntimeProfileTest, EachProfileFillsItsUnsetMemoryFields) {
  struct Case {
    std::string_view profile;
    std::string overhead;
  };
  // Built-in memory defaults: allowDecrease false, overhead 30.
  for (const Case& c : {Case{"", "30"}, Case{"generic", "30"}, Case{"golang", "30"},
                        Case{"java", "40"}, Case{"python", "30"}, Case{"nodejs", "30"}}) {
    SCOPED_TRACE(c.profile);
    const AttunePolicy p = defaulted(policyYaml(c.profile));
    EXPECT_EQ(p.spec.memory.overhead, c.overhead);
    EXPECT_EQ(p.spec.memory.allowDecrease, false);
    EXPECT_EQ(p.spec.cpu.overhead, "20") << "CPU is not a profile's";
    EXPECT_EQ(p.spec.cpu.allowDecrease, true);
  }
  // What the profile itself sets, before any built-in default.
  for (std::string_view profile : {"java", "python", "nodejs"}) {
    AttunePolicySpec spec;
    spec.runtimeProfile = decodeOne(policyYaml(profile)).policy->spec.runtimeProfile;
    applyRuntimeProfile(spec);
    EXPECT_EQ(spec.memory.allowDecrease, false) << profile;
    EXPECT_EQ(spec.memory.overhead.has_value(), profile == "java") << profile;
  }
  for (std::string_view profile : {"generic", "golang"}) {
    AttunePolicySpec spec;
    spec.runtimeProfile = decodeOne(policyYaml(profile)).policy->spec.runtimeProfile;
    applyRuntimeProfile(spec);
    EXPECT_EQ(spec.memory, AttunePolicySpec{}.memory) << profile;
  }
}

TEST(RuntimeProfileTest, ExplicitFieldsWinAndALiveDecreaseIsWarnedAbout) {
  const std::string memory = "    overhead: \"10\"\n    allowDecrease: true\n";
  for (std::string_view profile : {"java", "python", "nodejs"}) {
    SCOPED_TRACE(profile);
    const auto docs = checkPolicies(policyYaml(profile, memory));
    ASSERT_EQ(docs.size(), 1u);
    EXPECT_TRUE(docs[0].errors.empty()) << describe(docs[0].errors);
    expectOnly(docs[0].warnings, "spec.memory.allowDecrease",
               "runtimeProfile " + std::string(profile) +
                   ": this runtime usually keeps its heap when the memory limit shrinks in "
                   "place; prefer allowDecrease: false, or resizePolicy RestartContainer for "
                   "memory on the pod");
    EXPECT_EQ(docs[0].warnings[0].line, 16);
    const AttunePolicy p = defaulted(policyYaml(profile, memory));
    EXPECT_EQ(p.spec.memory.overhead, "10");
    EXPECT_EQ(p.spec.memory.allowDecrease, true);
  }
  for (std::string_view profile : {"", "generic", "golang"}) {
    const auto docs = checkPolicies(policyYaml(profile, memory));
    ASSERT_EQ(docs.size(), 1u);
    EXPECT_TRUE(docs[0].warnings.empty()) << profile << ": " << describe(docs[0].warnings);
  }
  EXPECT_FALSE(runtimeProfileWarning(defaulted(policyYaml("java")).spec).has_value());
}

// The profile applies after the defaults tiers (as the public operator's does): a value from
// AttuneNamespaceDefaults or AttuneDefaults wins over it, the profile over the built-in ones.
TEST(RuntimeProfileTest, ADefaultsTierWinsOverTheProfile) {
  const auto tiers = decodeDefaults(R"(apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata: {name: cluster}
spec:
  memory:
    overhead: "25"
)");
  ASSERT_EQ(tiers.size(), 1u);
  ASSERT_TRUE(tiers[0].defaults) << describe(tiers[0].errors);
  AttunePolicy p =
      mergeDefaults(*decodeOne(policyYaml("java")).policy, nullptr, &*tiers[0].defaults);
  applyDefaults(p);
  EXPECT_EQ(p.spec.memory.overhead, "25");
  EXPECT_EQ(p.spec.memory.allowDecrease, false);
}

// The public operator's own runtime-profile example validates without any warning now.
TEST(RuntimeProfileTest, ThePublicExampleHasNoWarning) {
  const auto docs = checkPolicies(attune::testing::readFile(
      attune::testing::sourceDir() / "tests/unit/api/policy/testdata/public/runtime-profile.yaml"));
  ASSERT_EQ(docs.size(), 1u);
  EXPECT_TRUE(docs[0].errors.empty()) << describe(docs[0].errors);
  EXPECT_TRUE(docs[0].warnings.empty()) << describe(docs[0].warnings);
  ASSERT_TRUE(docs[0].policy);
  EXPECT_EQ(docs[0].policy->spec.runtimeProfile, RuntimeProfile::kJava);
}

}  // namespace
}  // namespace attune::api
