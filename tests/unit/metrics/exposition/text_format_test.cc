#include "metrics/exposition/text_format.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace attune::metrics {
namespace {

TEST(TextFormatTest, EscapesLabelValuesAndHelp) {
  EXPECT_EQ(escapeLabelValue(R"(a\b"c)"
                             "\n"),
            R"(a\\b\"c\n)");
  EXPECT_EQ(escapeHelp(R"(say "hi"\)"
                       "\n"),
            R"(say "hi"\\\n)");
}

TEST(TextFormatTest, FormatsValues) {
  EXPECT_EQ(formatSampleValue(3), "3");
  EXPECT_EQ(formatSampleValue(0.25), "0.25");
  EXPECT_EQ(formatSampleValue(1e21), "1e+21");
  EXPECT_EQ(formatSampleValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(formatSampleValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(formatSampleValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(TextFormatTest, WritesSampleLines) {
  std::string out;
  appendSample(out, "up", {}, 1);
  std::vector<LabelPair> labels{{"pod", "web-0"}, {"reason", "a\"b"}};
  appendSample(out, "x_total", labels, 2.5);
  EXPECT_EQ(out, "up 1\nx_total{pod=\"web-0\",reason=\"a\\\"b\"} 2.5\n");
}

}  // namespace
}  // namespace attune::metrics
