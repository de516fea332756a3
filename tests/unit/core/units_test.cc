#include "core/units.h"

#include <gtest/gtest.h>

#include <type_traits>

namespace attune {
namespace {

using namespace literals;

// Only explicit conversions: raw integers and the other unit do not convert implicitly.
static_assert(!std::is_convertible_v<std::int64_t, Millicores>);
static_assert(!std::is_convertible_v<Millicores, std::int64_t>);
static_assert(!std::is_convertible_v<Millicores, Bytes>);
static_assert(!std::is_constructible_v<Bytes, Millicores>);
static_assert(std::is_constructible_v<Millicores, std::int64_t>);

TEST(UnitsTest, ArithmeticAndComparison) {
  EXPECT_EQ((250_m + 750_m).value(), 1000);
  EXPECT_EQ((1_Gi - 512_Mi), 512_Mi);
  EXPECT_LT(100_m, 200_m);
  Bytes b = 1_Ki;
  b += 1_Ki;
  EXPECT_EQ(b.value(), 2048);
  EXPECT_DOUBLE_EQ(toCores(1500_m), 1.5);
  EXPECT_EQ(Millicores::max().value(), std::numeric_limits<std::int64_t>::max());
}

}  // namespace
}  // namespace attune
