#include "core/error.h"

#include <gtest/gtest.h>

namespace attune {
namespace {

Result<int> half(int v) {
  if (v % 2 != 0)
    return fail(ErrorCode::kInvalidArgument, "odd value " + std::to_string(v), "spec.replicas");
  return v / 2;
}

TEST(ErrorTest, ResultCarriesValueOrError) {
  auto ok = half(4);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(*ok, 2);
  auto bad = half(3);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().toString(), "spec.replicas: odd value 3");
}

TEST(ErrorTest, ToStringWithoutField) {
  Error e{ErrorCode::kNotFound, "pod default/web-0 not found", ""};
  EXPECT_EQ(e.toString(), "pod default/web-0 not found");
  EXPECT_EQ(errorCodeName(e.code), "NotFound");
}

TEST(ErrorTest, JoinsFieldPaths) {
  EXPECT_EQ(joinPath("spec", "cpu"), "spec.cpu");
  EXPECT_EQ(joinPath("spec.containers", "[2]"), "spec.containers[2]");
  EXPECT_EQ(joinPath("", "cpu"), "cpu");
  EXPECT_EQ(joinPath("spec", ""), "spec");
  Error e{ErrorCode::kInvalidArgument, "bad", "requests.cpu"};
  EXPECT_EQ(e.under("spec.containers[0].resources").field,
            "spec.containers[0].resources.requests.cpu");
}

}  // namespace
}  // namespace attune
