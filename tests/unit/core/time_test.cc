#include <gtest/gtest.h>

#include "core/time.h"

namespace attune {
namespace {

TEST(Rfc3339Test, ParsesUtcAndOffsets) {
  auto t = parseRfc3339("2008-01-01T01:01:01Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(formatRfc3339(*t), "2008-01-01T01:01:01Z");
  EXPECT_EQ(t->time_since_epoch().count(), 1199149261LL * 1'000'000'000);

  auto offset = parseRfc3339("2008-01-01T03:01:01+02:00");
  ASSERT_TRUE(offset.has_value());
  EXPECT_EQ(*offset, *t);
  auto west = parseRfc3339("2007-12-31T19:31:01-05:30");
  ASSERT_TRUE(west.has_value());
  EXPECT_EQ(*west, *t);
}

TEST(Rfc3339Test, FractionalSeconds) {
  auto t = parseRfc3339("2026-11-21T10:20:30.123456Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(formatRfc3339(*t, 6), "2026-11-21T10:20:30.123456Z");
  EXPECT_EQ(formatRfc3339(*t, 3), "2026-11-21T10:20:30.123Z");
  EXPECT_EQ(formatRfc3339(*t), "2026-11-21T10:20:30Z");
  auto nanos = parseRfc3339("2026-11-21T10:20:30.123456789123Z");  // extra digits ignored
  ASSERT_TRUE(nanos.has_value());
  EXPECT_EQ(formatRfc3339(*nanos, 9), "2026-11-21T10:20:30.123456789Z");
}

TEST(Rfc3339Test, LeapDayAndEpoch) {
  EXPECT_TRUE(parseRfc3339("2024-02-29T00:00:00Z").has_value());
  EXPECT_EQ(formatRfc3339(Time{}), "1970-01-01T00:00:00Z");
}

TEST(Rfc3339Test, YearsOutsideTheNanosecondRangeAreOutOfRange) {
  for (const char* far : {"0001-01-01T00:00:00Z", "1677-01-01T00:00:00Z", "2263-01-01T00:00:00Z",
                          "9999-12-31T23:59:59Z"}) {
    auto t = parseRfc3339(far);
    ASSERT_FALSE(t.has_value()) << far;
    EXPECT_EQ(t.error().code, ErrorCode::kOutOfRange) << far;
    EXPECT_NE(t.error().message.find("1678-2261"), std::string::npos);
  }
  EXPECT_TRUE(parseRfc3339("1700-01-01T00:00:00Z").has_value());
  EXPECT_TRUE(parseRfc3339("2261-12-31T23:59:59Z").has_value());
}

TEST(Rfc3339Test, RejectsMalformed) {
  for (const char* bad :
       {"", "2008-01-01", "2008-01-01T01:01:01", "2008-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
        "2008-01-01T24:00:00Z", "2008-01-01T01:60:00Z", "2008-01-01T01:01:01.Z",
        "2008-01-01T01:01:01+0200", "2008-01-01T01:01:01Zjunk", "08-01-01T01:01:01Z"}) {
    auto t = parseRfc3339(bad);
    ASSERT_FALSE(t.has_value()) << bad;
    EXPECT_NE(t.error().message.find("invalid RFC 3339 timestamp"), std::string::npos);
  }
}

}  // namespace
}  // namespace attune
