#include <gtest/gtest.h>

#include "core/time.h"

namespace attune {
namespace {

using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

struct DurationCase {
  const char* text;
  Duration value;
};

class DurationParseTest : public ::testing::TestWithParam<DurationCase> {};

TEST_P(DurationParseTest, MatchesGo) {
  auto d = parseDuration(GetParam().text);
  ASSERT_TRUE(d.has_value()) << GetParam().text << ": " << d.error().toString();
  EXPECT_EQ(d->count(), GetParam().value.count()) << GetParam().text;
}

// Cases from Go's time.ParseDuration tests.
INSTANTIATE_TEST_SUITE_P(
    Go, DurationParseTest,
    ::testing::Values(
        DurationCase{"0", Duration(0)}, DurationCase{"5s", seconds(5)},
        DurationCase{"30s", seconds(30)}, DurationCase{"1478s", seconds(1478)},
        DurationCase{"-5s", -seconds(5)}, DurationCase{"+5s", seconds(5)},
        DurationCase{"-0", Duration(0)}, DurationCase{"+0", Duration(0)},
        DurationCase{"5.0s", seconds(5)}, DurationCase{"5.6s", milliseconds(5600)},
        DurationCase{"5.s", seconds(5)}, DurationCase{".5s", milliseconds(500)},
        DurationCase{"1.0s", seconds(1)}, DurationCase{"1.00s", seconds(1)},
        DurationCase{"1.004s", milliseconds(1004)}, DurationCase{"1.0040s", milliseconds(1004)},
        DurationCase{"100.00100s", milliseconds(100001)}, DurationCase{"10ns", nanoseconds(10)},
        DurationCase{"11us", microseconds(11)}, DurationCase{"12\xC2\xB5s", microseconds(12)},
        DurationCase{"12\xCE\xBCs", microseconds(12)}, DurationCase{"13ms", milliseconds(13)},
        DurationCase{"14s", seconds(14)}, DurationCase{"15m", minutes(15)},
        DurationCase{"16h", hours(16)}, DurationCase{"3h30m", hours(3) + minutes(30)},
        DurationCase{"10.5s4m", minutes(4) + milliseconds(10500)},
        DurationCase{"-2m3.4s", -(minutes(2) + milliseconds(3400))},
        DurationCase{"1h2m3s4ms5us6ns", hours(1) + minutes(2) + seconds(3) + milliseconds(4) +
                                            microseconds(5) + nanoseconds(6)},
        DurationCase{"39h9m14.425s", hours(39) + minutes(9) + seconds(14) + milliseconds(425)},
        DurationCase{"52763797000ns", nanoseconds(52763797000)},
        DurationCase{"0.3333333333333333333h", minutes(20)},
        DurationCase{"9007199254740993ns", nanoseconds(9007199254740993)},
        DurationCase{"9223372036854775807ns", nanoseconds(9223372036854775807)},
        DurationCase{"-9223372036854775808ns", Duration(std::numeric_limits<std::int64_t>::min())},
        DurationCase{"0.100000000000000000000h", minutes(6)},
        DurationCase{"300ms", milliseconds(300)}, DurationCase{"168h", hours(168)},
        DurationCase{"1h30m", minutes(90)}));

TEST(DurationParseTest, RejectsMalformedWithReason) {
  struct Bad {
    const char* text;
    const char* reason;
  };
  for (const Bad& b :
       {Bad{"", "expected a number with a unit"}, Bad{"3", "missing unit"},
        Bad{"-", "expected a number with a unit"}, Bad{"s", "expected a number"},
        Bad{".", "expected digits"}, Bad{"-.", "expected digits"}, Bad{".s", "expected digits"},
        Bad{"+.s", "expected digits"}, Bad{"1d", "unknown unit \"d\""},
        Bad{"5m ", "unknown unit \"m \""}, Bad{"3000000h", "overflows"},
        Bad{"9223372036854775808ns", "overflows"}, Bad{"9223372036854775.808us", "overflows"},
        Bad{"1h-30m", "unknown unit \"h-\""}}) {
    auto d = parseDuration(b.text);
    ASSERT_FALSE(d.has_value()) << b.text;
    EXPECT_EQ(d.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(d.error().message.find(b.reason), std::string::npos)
        << b.text << ": " << d.error().message;
    EXPECT_NE(d.error().message.find("invalid duration"), std::string::npos);
  }
}

TEST(DurationFormatTest, CompactAndParseable) {
  struct Case {
    Duration d;
    const char* text;
  };
  for (const Case& c : {Case{Duration(0), "0s"}, Case{hours(168), "168h"}, Case{minutes(5), "5m"},
                        Case{minutes(90), "1h30m"}, Case{milliseconds(300), "300ms"},
                        Case{seconds(30), "30s"}, Case{milliseconds(1500), "1.5s"},
                        Case{hours(1) + seconds(30), "1h30s"}, Case{microseconds(1500), "1.5ms"},
                        Case{nanoseconds(7), "7ns"}, Case{microseconds(2), "2us"},
                        Case{-minutes(2), "-2m"}, Case{hours(1) + milliseconds(1), "1h0.001s"}}) {
    EXPECT_EQ(formatDuration(c.d), c.text);
    auto back = parseDuration(formatDuration(c.d));
    ASSERT_TRUE(back.has_value()) << c.text;
    EXPECT_EQ(*back, c.d) << c.text;
  }
  Duration extreme(std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(parseDuration(formatDuration(extreme)).value(), extreme);
}

}  // namespace
}  // namespace attune
