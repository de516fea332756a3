#include "metrics/prometheus/query_response.h"

#include <gtest/gtest.h>
#include <simdjson.h>

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

// `body` fed to a QueryResponseStream in pieces cut at `cuts` (ascending offsets).
Result<QueryResponse> streamed(std::string_view body, const std::vector<std::size_t>& cuts,
                               ScalarResults scalars) {
  QueryResponseStream stream(scalars);
  std::size_t from = 0;
  for (std::size_t cut : cuts) {
    stream.feed(body.substr(from, cut - from));
    from = cut;
  }
  stream.feed(body.substr(from));
  auto out = stream.finish();
  // A failed decode stops taking bytes; one that did not took them all.
  if (out) {
    EXPECT_EQ(stream.head(), body.substr(0, 200));
  }
  return out;
}

bool validJson(const std::string& body) {
  simdjson::dom::parser parser;
  return parser.parse(body).error() == simdjson::SUCCESS;
}

// The stream's result equals decodeQueryResponse's for the whole body: the same value, or an
// error both ways. Except that the stream rejects a body whose brackets do not balance, which
// the whole decode (simdjson On Demand, reading only what it looks for) may accept.
void expectSameAsWhole(const std::string& body, const std::vector<std::size_t>& cuts,
                       ScalarResults scalars) {
  std::string copy = body;
  const auto whole = decodeQueryResponse(copy, scalars);
  const auto parts = streamed(body, cuts, scalars);
  const std::string where = "cut at " + ::testing::PrintToString(cuts) + " of " + body;
  if (whole && !parts && !validJson(body)) {
    EXPECT_EQ(parts.error().code, ErrorCode::kInvalidArgument) << where;
    return;
  }
  ASSERT_EQ(parts.has_value(), whole.has_value())
      << where << "\n  whole: " << (whole ? std::string("ok") : whole.error().message)
      << "\n  streamed: " << (parts ? std::string("ok") : parts.error().message);
  if (!whole) {
    EXPECT_EQ(parts.error().code, ErrorCode::kInvalidArgument) << where;
    return;
  }
  EXPECT_EQ(parts->success, whole->success) << where;
  EXPECT_EQ(parts->resultType, whole->resultType) << where;
  EXPECT_EQ(parts->error, whole->error) << where;
  EXPECT_EQ(parts->errorType, whole->errorType) << where;
  EXPECT_EQ(parts->warnings, whole->warnings) << where;
  EXPECT_EQ(parts->bytes, body.size()) << where;
  ASSERT_EQ(parts->series.size(), whole->series.size()) << where;
  for (std::size_t i = 0; i < whole->series.size(); ++i) {
    EXPECT_EQ(parts->series[i].labels, whole->series[i].labels) << where;
    ASSERT_EQ(parts->series[i].points.size(), whole->series[i].points.size()) << where;
    for (std::size_t p = 0; p < whole->series[i].points.size(); ++p) {
      EXPECT_EQ(parts->series[i].points[p].time, whole->series[i].points[p].time) << where;
      EXPECT_EQ(parts->series[i].points[p].value, whole->series[i].points[p].value) << where;
    }
  }
}

TEST(QueryResponseStream, DecodesInAnyPiecesWhatTheWholeBodyDecodesTo) {
  const std::vector<std::string> bodies = {
      // A matrix, with labels holding brackets, braces, commas and escaped quotes.
      R"({"status":"success","data":{"resultType":"matrix","result":[
          {"metric":{"namespace":"shop","pod":"web-1","container":"a]}\"[{,"},
           "values":[[1700000000,"1"],[1700000060,"NaN"],[1700000120,"2.5"]]} ,
          {"metric":{"pod":"b"},"values":[[1,"NaN"]]},
          {"values":[[5,"7"]],"metric":{"pod":"c\\"}}
        ]},"warnings":["slow"]})",
      // A vector; an empty one; one whose resultType comes after its result.
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"2"]}]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[ ]}})",
      R"({"data":{"result":[{"values":[[1,"1"],[2,"2"]],"metric":{}}],"resultType":"matrix"},
          "status":"success"})",
      // Status after data, and a failure with data.
      R"({"data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"3"]]}]},"status":"success"})",
      R"({"status":"error","errorType":"bad_data","error":"x","data":{"resultType":"vector",
          "result":[{"metric":{},"value":[1,"2"]}]}})",
      // A scalar (accepted or not); a vector series with two samples.
      R"({"status":"success","data":{"resultType":"scalar","result":[1700000000.5,"2.5"]}})",
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"],
          "values":[[2,"2"]]}]}})",
      // Keys that only look like the ones followed: nested, escaped, or not at the top.
      R"({"status":"success","x":{"data":{"resultType":"matrix","result":[1]}},
          "data":{"resultType":"matrix","r\u0065sult":[2],"result":[]}})",
      R"({"status":"success","data":{"resultType":"m\u0061trix","result":[{"metric":{},"values":[[1,"1"]]}]}})",
      // "data" twice, the first one's result before its resultType: the series stay in order.
      R"({"status":"success","data":{"result":[{"metric":{"p":"x"},"values":[[1,"1"]]}],
          "resultType":"matrix"},"data":{"resultType":"matrix","result":[{"metric":{"p":"y"},
          "values":[[1,"1"]]}]}})",
      // Malformed: a series that is not an object, a bad sample, missing or extra commas,
      // a truncated body, unbalanced brackets, an unterminated string.
      R"({"status":"success","data":{"resultType":"matrix","result":[1,2]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"abc"]]}]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[]} {"metric":{},"values":[]}]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[]},]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[,{"metric":{},"values":[]}]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1"]]})",
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{}]}]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"b}]}})",
      R"({"status":"success","data":{"resultType":"matrix","result":[]}}})",
      // Found by fuzzing: brackets that do not balance inside a series, which the whole decode
      // accepts (it skips what it does not read) and the stream rejects.
      R"~({"status":"succtor","data":{"resultType":"vector","result":[
      {"mektType":"vector","result":[
      {"mekric":"{-naespace":"shop","":"a\"b`},"vapod"8"web-3","ric":"{-naespace":"shop","":"a\"b`},"vapod"8"web-3","container":"app"}]}]}})~",
      "<html>502</html>",
      "",
  };
  for (const std::string& body : bodies) {
    for (ScalarResults scalars : {ScalarResults::kRejected, ScalarResults::kAccepted}) {
      expectSameAsWhole(body, {}, scalars);
      for (std::size_t cut = 1; cut < body.size(); ++cut) {
        expectSameAsWhole(body, {cut}, scalars);
      }
      std::vector<std::size_t> everyByte;
      for (std::size_t cut = 1; cut < body.size(); ++cut) everyByte.push_back(cut);
      expectSameAsWhole(body, everyByte, scalars);
    }
  }
}

TEST(QueryResponseStream, ReadsStringsAndEscapesAcrossEveryBlockBoundary) {
  // Label values long enough to be read 16 bytes at a time, with an escape, an escaped
  // backslash and brackets at every offset, so that each falls at every place of a block and
  // each cut falls in or after it.
  for (std::size_t pad = 0; pad < 20; ++pad) {
    const std::string filler(pad, 'x');
    const std::string body =
        R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":")" + filler +
        R"(\"]}\\","b":")" + filler + R"([{\\\"}"},"values":[[1700000000,"1"],)" +
        R"([1700000060,"2.5"]]},{"metric":{"c":")" + filler + R"(\\"},"values":[[1,"3"]]}]}})";
    ASSERT_TRUE(validJson(body)) << body;
    expectSameAsWhole(body, {}, ScalarResults::kRejected);
    for (std::size_t cut = 1; cut < body.size(); ++cut) {
      expectSameAsWhole(body, {cut}, ScalarResults::kRejected);
    }
    const auto r = streamed(body, {}, ScalarResults::kRejected);
    ASSERT_TRUE(r.has_value()) << r.error().message;
    ASSERT_EQ(r->series.size(), 2u);
    EXPECT_EQ(r->series[0].label("a"), filler + "\"]}\\");
    EXPECT_EQ(r->series[0].label("b"), filler + "[{\\\"}");
    EXPECT_EQ(r->series[1].points.size(), 1u);
  }
}

// The points of every series of `body`, in order, or the error.
Result<std::vector<Point>> pointsOf(std::string body) {
  auto r = decodeQueryResponse(body);
  if (!r) return std::unexpected(r.error());
  std::vector<Point> out;
  for (const PromSeries& series : r->series) {
    out.insert(out.end(), series.points.begin(), series.points.end());
  }
  return out;
}

TEST(QueryResponse, AMatrixsSamplesReadAsEachAloneInAVector) {
  // Each sample decodes the same in a matrix's "values" as alone as an instant vector's
  // "value", and a matrix holding any sample a vector rejects is rejected.
  const std::vector<std::string> good = {R"([1700000000,"1"])",
                                         R"([1700000000.5,"0.25"])",
                                         R"([ 1700000000.123 , "1e3" ])",
                                         "[1700000000.1234,\"2\"]",
                                         R"([1700000000.999999,"2"])",
                                         R"([1.7e9,"3"])",
                                         R"([17E8,"3"])",
                                         R"([1.7e+9,"3"])",
                                         R"([-0.5,"4"])",
                                         R"([-0,"4"])",
                                         R"([0,"5"])",
                                         R"([0.001,"5"])",
                                         R"([-9223372035,"1"])",
                                         R"([9223372035.000,"1"])",
                                         R"([1,"NaN"])",
                                         R"([1,"+Inf"])",
                                         R"([1,"-Inf"])",
                                         R"([1,"+5"])",
                                         R"([1,"\u0035"])",
                                         R"([1,"0.30000000000000004"])",
                                         R"([1,"-1.5e-7"])",
                                         "[1,\t\"6\"\n]",
                                         R"([123456789.987,"7"])",
                                         R"([1e-3,"8"])"};
  const std::vector<std::string> bad = {R"([01,"1"])",
                                        R"([1.,"1"])",
                                        R"([1,"abc"])",
                                        R"([1])",
                                        R"([1,"1",2])",
                                        R"(["1","1"])",
                                        R"([1,1])",
                                        R"([-,"1"])",
                                        R"([1e,"1"])",
                                        R"([12345678901.5,"1"])",
                                        R"([9223372035.0001,"1"])",
                                        R"([-9223372036,"1"])",
                                        R"([1e300,"1"])",
                                        R"([1,""])",
                                        R"([1,"1 "])",
                                        R"({"t":1})",
                                        R"([])",
                                        R"([true,"1"])"};
  const auto vector = [](const std::string& sample) {
    return pointsOf(R"({"status":"success","data":{"resultType":"vector","result":[)"
                    R"({"metric":{},"value":)" +
                    sample + "}]}}");
  };
  const auto matrix = [](const std::vector<std::string>& samples) {
    std::string values;
    for (const std::string& sample : samples) values += (values.empty() ? "" : ",") + sample;
    return pointsOf(R"({"status":"success","data":{"resultType":"matrix","result":[)"
                    R"({"metric":{},"values":[)" +
                    values + "]}]}}");
  };
  std::vector<Point> all;
  for (const std::string& sample : good) {
    const auto alone = vector(sample);
    ASSERT_TRUE(alone.has_value()) << sample << ": " << alone.error().message;
    const auto inMatrix = matrix({sample});
    ASSERT_TRUE(inMatrix.has_value()) << sample << ": " << inMatrix.error().message;
    ASSERT_EQ(inMatrix->size(), alone->size()) << sample;
    for (std::size_t i = 0; i < alone->size(); ++i) {
      EXPECT_EQ((*inMatrix)[i].time, (*alone)[i].time) << sample;
      EXPECT_EQ((*inMatrix)[i].value, (*alone)[i].value) << sample;
    }
    all.insert(all.end(), alone->begin(), alone->end());
  }
  const auto together = matrix(good);
  ASSERT_TRUE(together.has_value()) << together.error().message;
  ASSERT_EQ(together->size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ((*together)[i].time, all[i].time) << i;
    EXPECT_EQ((*together)[i].value, all[i].value) << i;
  }
  EXPECT_EQ(all[4].time, at(1700000001.0)) << "1700000000.999999 s is 1700000001000 ms";
  for (const std::string& sample : bad) {
    EXPECT_FALSE(vector(sample).has_value()) << sample;
    const auto inMatrix = matrix({good[0], sample, good[1]});
    ASSERT_FALSE(inMatrix.has_value()) << sample;
    EXPECT_EQ(inMatrix.error().code, ErrorCode::kInvalidArgument) << sample;
  }
  // Whitespace around the whole array, and an empty one.
  const auto spaced = pointsOf(R"({"status":"success","data":{"resultType":"matrix","result":[)"
                               R"({"metric":{},"values": [ [1,"1"] ,[2,"2"] ] }]}})");
  ASSERT_TRUE(spaced.has_value()) << spaced.error().message;
  EXPECT_EQ(spaced->size(), 2u);
  const auto empty = pointsOf(R"({"status":"success","data":{"resultType":"matrix","result":[)"
                              R"({"metric":{},"values":[ ]}]}})");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
}

TEST(QueryResponseStream, HoldsOneSeriesTextNotTheBody) {
  // 2,000 series of 100 samples, fed in pieces of 16 KiB (libcurl's writes).
  std::string body = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  std::size_t longestSeries = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string series = std::string(i == 0 ? "" : ",") + R"({"metric":{"pod":"web-)" +
                         std::to_string(i) + R"("},"values":[)";
    for (int t = 0; t < 100; ++t) {
      series += (t == 0 ? "[" : ",[") + std::to_string(1'700'000'000 + 60 * t) + ",\"0." +
                std::to_string(i * t) + "\"]";
    }
    series += "]}";
    longestSeries = std::max(longestSeries, series.size());
    body += series;
  }
  body += "]}}";
  ASSERT_GT(body.size(), 4'000'000u);
  QueryResponseStream stream;
  std::size_t held = 0;
  constexpr std::size_t kPiece = 16 * 1024;
  for (std::size_t from = 0; from < body.size(); from += kPiece) {
    ASSERT_TRUE(stream.feed(std::string_view(body).substr(from, kPiece)));
    held = std::max(held, stream.textHeld());
  }
  // The envelope and one series (rounded up by the strings' growth and simdjson's padding).
  EXPECT_LT(held, 4 * longestSeries);
  auto r = stream.finish();
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->series.size(), 2000u);
  EXPECT_EQ(r->series[1999].label("pod"), "web-1999");
  ASSERT_EQ(r->series[1999].points.size(), 100u);
  EXPECT_EQ(r->series[1999].points[99].value, std::stod("0." + std::to_string(1999 * 99)));
  EXPECT_EQ(r->bytes, body.size());
}

TEST(QueryResponseStream, AFailedSeriesEndsTheDecode) {
  QueryResponseStream stream;
  EXPECT_TRUE(stream.feed(R"({"status":"success","data":{"resultType":"matrix","result":[)"));
  EXPECT_FALSE(stream.feed(R"({"metric":{},"values":[[1,"abc"]]},)"));
  EXPECT_FALSE(stream.feed(R"({"metric":{},"values":[[1,"1"]]}]}})"));
  auto r = stream.finish();
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("\"abc\" is not a number"), std::string::npos)
      << r.error().message;
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
