#include <gtest/gtest.h>

#include "fake_transport.h"
#include "metrics/prometheus/http_client.h"

namespace attune::metrics {
namespace {

TEST(FormEncode, KeepsUnreservedAndEscapesEverythingElse) {
  EXPECT_EQ(formEncode({{"a", "AZaz09-._~*"}}), "a=AZaz09-._~*");
  EXPECT_EQ(formEncode({{"q", "a b"}}), "q=a+b");
  EXPECT_EQ(formEncode({{"q", "x&y=z+1%"}}), "q=x%26y%3Dz%2B1%25");
  EXPECT_EQ(formEncode({{"q", "{ns=\"a\"}[5m]"}}), "q=%7Bns%3D%22a%22%7D%5B5m%5D");
  EXPECT_EQ(formEncode({{"q", "é\n"}}), "q=%C3%A9%0A");
}

TEST(FormEncode, JoinsPairsInOrder) {
  EXPECT_EQ(formEncode({}), "");
  EXPECT_EQ(formEncode({{"query", "up"}, {"time", "1.5"}, {"k y", ""}}), "query=up&time=1.5&k+y=");
}

TEST(FormEncode, RoundTripsThroughADecoder) {
  const std::string promql =
      R"(sum by (namespace) (rate(x{container!="",namespace="a\"b"}[120s])) / 2 + 1)";
  auto fields = testing::formFields(formEncode({{"query", promql}, {"step", "60.000"}}));
  EXPECT_EQ(fields["query"], promql);
  EXPECT_EQ(fields["step"], "60.000");
}

TEST(HttpResponse, HeaderLookupIsCaseInsensitive) {
  HttpResponse r{200, "", {{"Content-Type", "application/json"}, {"Retry-After", "3"}}};
  EXPECT_EQ(r.header("retry-after"), "3");
  EXPECT_EQ(r.header("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(r.header("Missing"), std::nullopt);
}

}  // namespace
}  // namespace attune::metrics
