#include "metrics/prometheus/query_response.h"

#include <gtest/gtest.h>

namespace attune::metrics {
namespace {

Time at(double seconds) {
  return Time(std::chrono::duration_cast<Duration>(
      std::chrono::milliseconds(static_cast<long long>(seconds * 1000))));
}

QueryResponse decode(std::string body) {
  auto r = decodeQueryResponse(body);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r ? *r : QueryResponse{};
}

TEST(QueryResponse, DecodesAVector) {
  auto r = decode(R"({"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"namespace":"shop","pod":"web-1","container":"app"},"value":[1700000000.5,"0.25"]},
      {"metric":{"namespace":"shop","pod":"web-2","container":"a\"b"},"value":[1700000000.5,"1e3"]}]}})");
  ASSERT_TRUE(r.success);
  EXPECT_EQ(r.resultType, "vector");
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.series[0].label("pod"), "web-1");
  EXPECT_EQ(r.series[0].label("absent"), "");
  ASSERT_EQ(r.series[0].points.size(), 1u);
  EXPECT_EQ(r.series[0].points[0].time, at(1700000000.5));
  EXPECT_DOUBLE_EQ(r.series[0].points[0].value, 0.25);
  EXPECT_EQ(r.series[1].label("container"), "a\"b");
  EXPECT_DOUBLE_EQ(r.series[1].points[0].value, 1000);
}

TEST(QueryResponse, DecodesAMatrixInAnyFieldOrder) {
  auto r = decode(R"({"data":{"result":[{"values":[[1700000000,"1"],[1700000060,"2.5"]],
      "metric":{"__name__":"x","node":"n1"}}],"resultType":"matrix"},"status":"success"})");
  ASSERT_TRUE(r.success);
  EXPECT_EQ(r.resultType, "matrix");
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].label("__name__"), "x");
  ASSERT_EQ(r.series[0].points.size(), 2u);
  EXPECT_EQ(r.series[0].points[1].time, at(1700000060));
  EXPECT_DOUBLE_EQ(r.series[0].points[1].value, 2.5);
}

TEST(QueryResponse, DropsNaNAndInfinitySamplesAndEmptiedSeries) {
  auto r = decode(R"({"status":"success","data":{"resultType":"matrix","result":[
      {"metric":{"pod":"a"},"values":[[1,"NaN"],[2,"+Inf"],[3,"-Inf"],[4,"7"],[5,"-0.5"]]},
      {"metric":{"pod":"b"},"values":[[1,"NaN"],[2,"Inf"]]}]}})");
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].label("pod"), "a");
  ASSERT_EQ(r.series[0].points.size(), 2u);
  EXPECT_DOUBLE_EQ(r.series[0].points[0].value, 7);
  EXPECT_DOUBLE_EQ(r.series[0].points[1].value, -0.5);
}

TEST(QueryResponse, EmptyResultIsNoSeries) {
  auto r = decode(R"({"status":"success","data":{"resultType":"vector","result":[]}})");
  EXPECT_TRUE(r.success);
  EXPECT_TRUE(r.series.empty());
}

// Found by fuzzing: a body whose status is not "success" (or that has none) yielded series.
// Without a success there is no result: the operator fails closed.
TEST(QueryResponse, NoSuccessMeansNoSeries) {
  std::string missing =
      R"({"etatus":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"2"]}]}})";
  auto r = decodeQueryResponse(missing);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("no status"), std::string::npos) << r.error().message;
  std::string failed =
      R"({"status":"error","errorType":"bad_data","error":"x","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"2"]}]}})";
  auto e = decodeQueryResponse(failed);
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->success);
  EXPECT_TRUE(e->series.empty());
  EXPECT_EQ(e->error, "x");
}

TEST(QueryResponse, DecodesWarnings) {
  auto r = decode(R"({"status":"success","warnings":["partial response","slow"],
      "data":{"resultType":"vector","result":[]}})");
  EXPECT_EQ(r.warnings, (std::vector<std::string>{"partial response", "slow"}));
}

TEST(QueryResponse, DecodesAScalarWhenAccepted) {
  std::string body =
      R"({"status":"success","data":{"resultType":"scalar","result":[1700000000.5,"2.5"]}})";
  auto r = decodeQueryResponse(body, ScalarResults::kAccepted);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->resultType, "scalar");
  ASSERT_EQ(r->series.size(), 1u);
  EXPECT_TRUE(r->series[0].labels.empty());
  ASSERT_EQ(r->series[0].points.size(), 1u);
  EXPECT_EQ(r->series[0].points[0].value, 2.5);
  EXPECT_EQ(r->series[0].points[0].time, Time(std::chrono::milliseconds(1'700'000'000'500)));
  std::string nan = R"({"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}})";
  auto dropped = decodeQueryResponse(nan, ScalarResults::kAccepted);
  ASSERT_TRUE(dropped.has_value());
  EXPECT_TRUE(dropped->series.empty());
}

TEST(QueryResponse, DecodesErrorEnvelope) {
  auto r = decode(R"({"status":"error","errorType":"bad_data","error":"parse error at 1:5"})");
  EXPECT_FALSE(r.success);
  EXPECT_EQ(r.errorType, "bad_data");
  EXPECT_EQ(r.error, "parse error at 1:5");
}

TEST(QueryResponse, RejectsMalformedBodies) {
  for (std::string body : {std::string("<html>502</html>"), std::string("[1,2]"),
                           std::string(R"({"status":"success"})"),
                           std::string(R"({"status":"success","data":{"resultType":"scalar",
                               "result":[1,"2"]}})"),
                           std::string(R"({"status":"success","data":{"resultType":"vector",
                               "result":[{"metric":{},"value":[1,"abc"]}]}})"),
                           std::string(R"({"status":"success","data":{"resultType":"vector",
                               "result":[{"metric":{},"value":[1]}]}})"),
                           std::string(R"({"status":"success","data":{"resultType":"vector",
                               "result":[{"metric":{"a":1},"value":[1,"2"]}]}})"),
                           std::string(R"({"status":"success","data":{"resultType":"vector",)")}) {
    const std::string original = body;
    auto r = decodeQueryResponse(body);
    ASSERT_FALSE(r.has_value()) << original;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(body, original) << "the body is restored after padding";
  }
}

TEST(QueryResponse, AVectorOrScalarSeriesWithMoreThanOneSampleIsMalformed) {
  // "values" read before "resultType":"vector", and a series with both "value" and "values":
  // a vector has one sample per series.
  for (std::string body :
       {std::string(R"({"data":{"result":[{"values":[[1,"1"],[2,"2"]],"metric":{}}],
            "resultType":"vector"},"status":"success"})"),
        std::string(R"({"status":"success","data":{"resultType":"vector",
            "result":[{"metric":{},"value":[1,"1"],"values":[[2,"2"]]}]}})")}) {
    const std::string original = body;
    auto r = decodeQueryResponse(body);
    ASSERT_FALSE(r.has_value()) << original;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message.find("a vector series with more than one sample"),
              std::string::npos)
        << r.error().message;
  }
  std::string scalar = R"({"data":{"result":[{"values":[[1,"1"],[2,"2"]],"metric":{}}],
      "resultType":"scalar"},"status":"success"})";
  auto r = decodeQueryResponse(scalar, ScalarResults::kAccepted);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("a scalar series with more than one sample"), std::string::npos)
      << r.error().message;
  auto one = decode(R"({"data":{"result":[{"values":[[1,"1"]],"metric":{}}],
      "resultType":"vector"},"status":"success"})");
  ASSERT_EQ(one.series.size(), 1u);
  EXPECT_EQ(one.series[0].points.size(), 1u);
}

TEST(QueryResponse, ASampleTimeBeyondTheRangeOfTimeIsMalformed) {
  // Time counts nanoseconds in 64 bits, up to 9223372036 s either side of the epoch.
  for (const char* t : {"1e300", "-1e300", "17000010000000", "9223372036.9"}) {
    std::string body = std::string(R"({"status":"success","data":{"resultType":"vector",
        "result":[{"metric":{},"value":[)") +
                       t + R"(,"1"]}]}})";
    auto r = decodeQueryResponse(body);
    ASSERT_FALSE(r.has_value()) << t;
    EXPECT_NE(r.error().message.find("sample time out of range"), std::string::npos)
        << r.error().message;
  }
  auto r = decode(R"({"status":"success","data":{"resultType":"vector",
      "result":[{"metric":{},"value":[-9223372035,"1"]}]}})");
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].points[0].time, at(-9223372035.0));
}

TEST(SampleValue, ParsesNumbersAndDropsNonFinite) {
  EXPECT_EQ(parseSampleValue("1.5").value(), 1.5);
  EXPECT_EQ(parseSampleValue("+2").value(), 2.0);
  EXPECT_EQ(parseSampleValue("-3e2").value(), -300.0);
  EXPECT_EQ(parseSampleValue("NaN").value(), std::nullopt);
  EXPECT_EQ(parseSampleValue("+Inf").value(), std::nullopt);
  EXPECT_EQ(parseSampleValue("-Inf").value(), std::nullopt);
  EXPECT_FALSE(parseSampleValue("").has_value());
  EXPECT_FALSE(parseSampleValue("1x").has_value());
}

}  // namespace
}  // namespace attune::metrics
