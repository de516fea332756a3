#include "metrics/trace/csv_fields.h"

#include <gtest/gtest.h>

#include <cmath>

#include "trace_testing.h"

namespace attune::metrics {
namespace {

TEST(CsvFieldsTest, SplitsAndTrimsSpacesAndTabs) {
  EXPECT_EQ(splitFields("1;\t2;\t 3 ", ';'), (std::vector<std::string_view>{"1", "2", "3"}));
  EXPECT_EQ(splitFields("a,,b,", ','), (std::vector<std::string_view>{"a", "", "b", ""}));
  EXPECT_EQ(splitFields("", ','), (std::vector<std::string_view>{""}));
}

TEST(CsvFieldsTest, ParsesMeasurements) {
  EXPECT_EQ(parseMeasurement("12").value(), 12.0);
  EXPECT_EQ(parseMeasurement("1.5e3").value(), 1500.0);
  EXPECT_TRUE(std::isnan(parseMeasurement("nan").value()));
  EXPECT_TRUE(std::isinf(parseMeasurement("inf").value()));
  EXPECT_FALSE(parseMeasurement("").has_value());
  EXPECT_FALSE(parseMeasurement("12x").has_value());
  EXPECT_EQ(parseMeasurement("-1").error().message, "negative value \"-1\"");
}

TEST(CsvFieldsTest, ParsesCounts) {
  EXPECT_EQ(parseCount("7").value(), 7);
  EXPECT_FALSE(parseCount("-1").has_value());
  EXPECT_FALSE(parseCount("1.5").has_value());
  EXPECT_FALSE(parseCount("99999999999999999999").has_value());
}

TEST(CsvFieldsTest, ParsesUnixSecondsAndRfc3339) {
  using testing::unixTime;
  EXPECT_EQ(parseTimestamp("1714521600").value(), unixTime(1714521600));
  EXPECT_EQ(parseTimestamp("1714521600.25").value(),
            unixTime(1714521600) + std::chrono::milliseconds(250));
  EXPECT_EQ(parseTimestamp("2024-05-01T00:00:00Z").value(), unixTime(1714521600));
  EXPECT_EQ(parseTimestamp("2024-05-01T02:00:00+02:00").value(), unixTime(1714521600));
  EXPECT_FALSE(parseTimestamp("1714521600.").has_value());
  EXPECT_FALSE(parseTimestamp("yesterday").has_value());
  EXPECT_FALSE(parseTimestamp("").has_value());
}

// Found by fuzzing: seconds past 2262 overflowed the nanosecond count (undefined behaviour).
TEST(CsvFieldsTest, RefusesTimestampsTooLateToRepresent) {
  EXPECT_TRUE(parseTimestamp("9000000000").has_value());
  const auto late = parseTimestamp("17672571200");
  ASSERT_FALSE(late.has_value());
  EXPECT_EQ(late.error().code, ErrorCode::kOutOfRange);
  EXPECT_FALSE(parseTimestamp("999999999999").has_value());
}

TEST(CsvFieldsTest, UnixSecondsBeyondTheRangeOfTimeAreOutOfRange) {
  // Time counts nanoseconds in 64 bits, up to 9223372036.854775807 s after the epoch.
  EXPECT_EQ(parseTimestamp("9223372035.999999999").value(),
            testing::unixTime(9223372035) + std::chrono::nanoseconds(999999999));
  for (const char* field : {"9223372036", "137264242704", "99999999999999999999", "1.0123456789"}) {
    auto t = parseTimestamp(field);
    ASSERT_FALSE(t.has_value()) << field;
    EXPECT_EQ(t.error().code, ErrorCode::kOutOfRange) << field;
  }
  EXPECT_EQ(parseTimestamp("0000000000001").value(), testing::unixTime(1));
}

}  // namespace
}  // namespace attune::metrics
