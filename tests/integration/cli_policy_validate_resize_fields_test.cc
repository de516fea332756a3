// `attune policy validate` on the fields of memory limit decreases and the recreate fallback
// (spec.memory.decreaseUsageMarginPercent, spec.updateStrategy.resizeMethod): modeled, so they
// decode without the "accepted for compatibility ... no effect" warning, print back with their
// defaults, and bad values name their field and line.
#include <gtest/gtest.h>

#include <string>

#include "support/command.h"

namespace attune {
namespace {

using testing::CommandRun;

CommandRun runAttune(const std::string& args) {
  CommandRun run = testing::runCommand(std::string(ATTUNE_BINARY) + " " + args);
  run.out += run.err;
  return run;
}

TEST(CliPolicyValidateResizeFieldsTest, ModeledWithoutANoEffectWarning) {
  const std::string file = std::string(ATTUNE_TEST_DATA) + "/resize_fields.yaml";
  CommandRun run = runAttune("policy validate " + file);
  EXPECT_EQ(run.exitCode, 0) << run.out;
  EXPECT_EQ(run.out.find("no effect"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("warning"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("decreaseUsageMarginPercent: 20"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("resizeMethod: InPlaceOrRecreate"), std::string::npos) << run.out;
}

TEST(CliPolicyValidateResizeFieldsTest, DefaultsArePrinted) {
  CommandRun run =
      runAttune("policy validate " + std::string(ATTUNE_TEST_DATA) + "/resize_fields_unset.yaml");
  EXPECT_EQ(run.exitCode, 0) << run.out;
  EXPECT_NE(run.out.find("decreaseUsageMarginPercent: 10"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("resizeMethod: InPlaceOnly"), std::string::npos) << run.out;
}

TEST(CliPolicyValidateResizeFieldsTest, BadValuesNameTheirFieldAndLine) {
  const std::string file = std::string(ATTUNE_TEST_DATA) + "/resize_fields_bad.yaml";
  CommandRun run = runAttune("policy validate " + file);
  EXPECT_EQ(run.exitCode, 1) << run.out;
  EXPECT_NE(run.out.find(file + ":11: spec.memory.decreaseUsageMarginPercent:"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(file + ":14: spec.updateStrategy.resizeMethod:"), std::string::npos)
      << run.out;
}

}  // namespace
}  // namespace attune
