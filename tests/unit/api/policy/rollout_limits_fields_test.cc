// spec.updateStrategy.schedule, maxTotalCpuIncrease and maxTotalMemoryIncrease as modelled
// fields: decoded without the "no effect" warning, encoded back, validated with field paths,
// defaulted and inherited from the defaults tiers.
#include <gtest/gtest.h>

#include "api/policy/attune_defaults.h"
#include "api/policy/policy_codec.h"
#include "policy_test_util.h"

namespace attune::api {
namespace {

using testing::decodeOne;
using testing::describe;
using testing::kMinimalPolicy;

std::string withUpdateStrategy(std::string_view lines) {
  return std::string(kMinimalPolicy) + "  updateStrategy:\n" + std::string(lines);
}

TEST(RollOutLimitsFieldsTest, AreDecodedWithoutTheNoEffectWarning) {
  const DecodedPolicy doc = decodeOne(withUpdateStrategy(R"(    type: Auto
    maxTotalCpuIncrease: "2"
    maxTotalMemoryIncrease: 4Gi
    schedule:
      windows: [{start: "02:00", end: "06:00"}, {start: "22:00", end: "23:30"}]
      daysOfWeek: [Monday, Friday]
      timezone: America/New_York
)"));
  ASSERT_TRUE(doc.errors.empty()) << describe(doc.errors);
  EXPECT_TRUE(doc.warnings.empty()) << describe(doc.warnings);
  ASSERT_TRUE(doc.policy);
  EXPECT_TRUE(doc.policy->preserved.empty());
  const UpdateStrategy& u = doc.policy->spec.updateStrategy;
  EXPECT_EQ(u.maxTotalCpuIncrease, Millicores(2000));
  EXPECT_EQ(u.maxTotalMemoryIncrease, Bytes(4LL << 30));
  ASSERT_TRUE(u.schedule);
  ASSERT_EQ(u.schedule->windows.size(), 2u);
  EXPECT_EQ(u.schedule->windows[1], (TimeWindow{"22:00", "23:30"}));
  EXPECT_EQ(u.schedule->daysOfWeek, (std::vector<std::string>{"Monday", "Friday"}));
  EXPECT_EQ(u.schedule->timezone, "America/New_York");

  const std::string yaml = encodePolicyYaml(*doc.policy);
  // Quoted: YAML 1.1 readers take a plain 22:00 for a base-60 number.
  EXPECT_NE(yaml.find("- start: \"22:00\"\n          end: \"23:30\""), std::string::npos) << yaml;
  const DecodedPolicy again = decodeOne(yaml);
  ASSERT_TRUE(again.errors.empty()) << describe(again.errors) << yaml;
  EXPECT_EQ(again.policy, doc.policy) << yaml;
  const DecodedPolicy fromJson = decodeOne(encodePolicyJson(*doc.policy));
  EXPECT_EQ(fromJson.policy, doc.policy);
}

TEST(RollOutLimitsFieldsTest, CheckPoliciesPrintsNoWarningForThem) {
  const auto results = checkPolicies(withUpdateStrategy(R"(    type: Auto
    maxTotalCpuIncrease: 500m
    schedule: {windows: [{start: "01:00", end: "05:00"}]}
)"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].errors.empty()) << describe(results[0].errors);
  EXPECT_TRUE(results[0].warnings.empty()) << describe(results[0].warnings);
}

TEST(RollOutLimitsFieldsTest, BadValuesAreErrorsWithTheirFieldPathAndLine) {
  const auto results = checkPolicies(withUpdateStrategy(R"(    maxTotalCpuIncrease: -1
    maxTotalMemoryIncrease: -1Gi
    schedule:
      windows: [{start: "2:00", end: "24:00"}, {end: "06:00"}]
      daysOfWeek: [monday]
      timezone: "../etc/passwd"
)"));
  ASSERT_EQ(results.size(), 1u);
  const auto& errors = results[0].errors;
  const auto expect = [&](std::string_view path, std::string_view text, int line) {
    const PolicyDiagnostic* d = testing::find(errors, path);
    ASSERT_NE(d, nullptr) << path << "\n" << describe(errors);
    EXPECT_NE(d->error.message.find(text), std::string::npos) << d->error.message;
    EXPECT_EQ(d->line, line) << path;
  };
  expect("spec.updateStrategy.maxTotalCpuIncrease", "must not be negative", 14);
  expect("spec.updateStrategy.maxTotalMemoryIncrease", "must not be negative", 15);
  expect("spec.updateStrategy.schedule.windows[0].start", "HH:MM", 17);
  expect("spec.updateStrategy.schedule.windows[0].end", "got \"24:00\"", 17);
  expect("spec.updateStrategy.schedule.windows[1].start", "required", 17);
  expect("spec.updateStrategy.schedule.daysOfWeek[0]",
         "must be one of Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday", 18);
  expect("spec.updateStrategy.schedule.timezone", "IANA time zone name", 19);
  EXPECT_EQ(errors.size(), 7u) << describe(errors);
}

TEST(RollOutLimitsFieldsTest, AWindowThatNeverOpensIsAWarning) {
  const auto results = checkPolicies(withUpdateStrategy(R"(    schedule:
      windows: [{start: "02:00", end: "02:00"}]
)"));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].errors.empty()) << describe(results[0].errors);
  testing::expectOnly(results[0].warnings, "spec.updateStrategy.schedule.windows[0]",
                      "start equals end (02:00): this window never opens");
}

TEST(RollOutLimitsFieldsTest, TheScheduleTimeZoneDefaultsToUtcAndBudgetsStayUnlimited) {
  AttunePolicy p = decodeOne(withUpdateStrategy("    schedule: {daysOfWeek: [Sunday]}\n"))
                       .policy.value_or(AttunePolicy{});
  applyDefaults(p);
  ASSERT_TRUE(p.spec.updateStrategy.schedule);
  EXPECT_EQ(p.spec.updateStrategy.schedule->timezone, "UTC");
  EXPECT_FALSE(p.spec.updateStrategy.maxTotalCpuIncrease);
  EXPECT_FALSE(p.spec.updateStrategy.maxTotalMemoryIncrease);
  AttunePolicy none = testing::defaultedMinimalPolicy();
  EXPECT_FALSE(none.spec.updateStrategy.schedule) << "no schedule: resizes at any time";
}

TEST(RollOutLimitsFieldsTest, DefaultsTiersFillThemAndTheScheduleIsOneValue) {
  const auto cluster = checkDefaults(R"(apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata: {name: cluster}
spec:
  updateStrategy:
    maxTotalCpuIncrease: "4"
    maxTotalMemoryIncrease: 8Gi
    schedule:
      windows: [{start: "01:00", end: "03:00"}]
      timezone: Europe/Paris
)");
  ASSERT_EQ(cluster.size(), 1u);
  ASSERT_TRUE(cluster[0].errors.empty()) << describe(cluster[0].errors);
  EXPECT_TRUE(cluster[0].warnings.empty()) << describe(cluster[0].warnings);
  const AttuneDefaults& d = *cluster[0].defaults;

  const AttunePolicy bare = decodeOne(kMinimalPolicy).policy.value_or(AttunePolicy{});
  const AttunePolicy merged = mergeDefaults(bare, nullptr, &d);
  EXPECT_EQ(merged.spec.updateStrategy.maxTotalCpuIncrease, Millicores(4000));
  EXPECT_EQ(merged.spec.updateStrategy.maxTotalMemoryIncrease, Bytes(8LL << 30));
  EXPECT_EQ(merged.spec.updateStrategy.schedule, d.spec.updateStrategy.schedule);

  // A policy's own schedule wins whole: the cluster's zone does not leak into it.
  const AttunePolicy own =
      decodeOne(withUpdateStrategy("    maxTotalCpuIncrease: 1\n    schedule: {daysOfWeek: "
                                   "[Saturday]}\n"))
          .policy.value_or(AttunePolicy{});
  const AttunePolicy kept = mergeDefaults(own, nullptr, &d);
  EXPECT_EQ(kept.spec.updateStrategy.maxTotalCpuIncrease, Millicores(1000));
  EXPECT_EQ(kept.spec.updateStrategy.maxTotalMemoryIncrease, Bytes(8LL << 30));
  ASSERT_TRUE(kept.spec.updateStrategy.schedule);
  EXPECT_FALSE(kept.spec.updateStrategy.schedule->timezone);
  EXPECT_TRUE(kept.spec.updateStrategy.schedule->windows.empty());
}

}  // namespace
}  // namespace attune::api
