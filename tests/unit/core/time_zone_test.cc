// core/time_zone: TZif parsing and offsets, from the system's tz database when it is installed.
#include "core/time_zone.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace attune {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

Time at(std::string_view rfc3339) { return *parseRfc3339(rfc3339); }

class SystemZoneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(zoneinfoDirectory() + "/America/New_York")) {
      GTEST_SKIP() << "no tz database at " << zoneinfoDirectory() << " (install tzdata)";
    }
  }
};

TEST_F(SystemZoneTest, NewYorkFollowsDaylightSavingTime) {
  auto ny = loadTimeZone("America/New_York", zoneinfoDirectory());
  ASSERT_TRUE(ny) << ny.error().toString();
  EXPECT_EQ(ny->name(), "America/New_York");
  EXPECT_EQ(ny->offsetAt(at("2026-01-05T12:00:00Z")), -hours(5));
  EXPECT_EQ(ny->offsetAt(at("2026-07-01T12:00:00Z")), -hours(4));
  // 2026-03-08 02:00 EST = 07:00 UTC: the change is exact to the second.
  EXPECT_EQ(ny->offsetAt(at("2026-03-08T06:59:59Z")), -hours(5));
  EXPECT_EQ(ny->offsetAt(at("2026-03-08T07:00:00Z")), -hours(4));
}

TEST_F(SystemZoneTest, ZonesWithoutDaylightSavingAndHalfHours) {
  auto kolkata = loadTimeZone("Asia/Kolkata", zoneinfoDirectory());
  ASSERT_TRUE(kolkata);
  EXPECT_EQ(kolkata->offsetAt(at("2026-01-05T00:00:00Z")), hours(5) + std::chrono::minutes(30));
  auto utc = loadTimeZone("Etc/UTC", zoneinfoDirectory());
  ASSERT_TRUE(utc);
  EXPECT_EQ(utc->offsetAt(at("2026-07-01T00:00:00Z")), seconds(0));
}

TEST(TimeZoneTest, UnknownAndMalformedNames) {
  const auto missing = loadTimeZone("Mars/Olympus_Mons", zoneinfoDirectory());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("Mars/Olympus_Mons"), std::string::npos);
  for (std::string_view bad :
       {"", "/etc/passwd", "../etc/passwd", "America/../../etc", "a b", "America/", "-x"}) {
    EXPECT_FALSE(isTimeZoneName(bad)) << bad;
    const auto r = loadTimeZone(bad, zoneinfoDirectory());
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << bad;
  }
  for (std::string_view good : {"UTC", "America/New_York", "Etc/GMT+5", "America/Port-au-Prince"}) {
    EXPECT_TRUE(isTimeZoneName(good)) << good;
  }
}

TEST(TimeZoneTest, UtcNeedsNoDatabase) {
  const auto utc = loadTimeZone("UTC", "/nonexistent");
  ASSERT_TRUE(utc);
  EXPECT_EQ(utc->offsetAt(at("2026-01-05T00:00:00Z")), seconds(0));
}

TEST(TimeZoneTest, RejectsBytesThatAreNotTzif) {
  EXPECT_FALSE(TimeZone::fromTzif("x", ""));
  EXPECT_FALSE(TimeZone::fromTzif("x", "not a zone file at all, but long enough to have a header"));
  // A version-1 header with one type and no transitions: a fixed offset of +1h.
  std::string v1("TZif", 4);
  v1 += std::string(16, '\0');  // version 1, reserved
  const auto count = [](std::uint32_t n) {
    return std::string{char(n >> 24), char(n >> 16), char(n >> 8), char(n)};
  };
  v1 += count(0) + count(0) + count(0) + count(0) + count(1) + count(4);
  v1 += count(3600) + std::string{'\0', '\0'} + std::string("CET", 4);
  auto fixed = TimeZone::fromTzif("fixed", v1);
  ASSERT_TRUE(fixed) << fixed.error().toString();
  EXPECT_EQ(fixed->offsetAt(at("2026-01-05T00:00:00Z")), hours(1));
  EXPECT_FALSE(TimeZone::fromTzif("cut", v1.substr(0, v1.size() - 3)));
}

}  // namespace
}  // namespace attune
