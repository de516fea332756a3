#include <gtest/gtest.h>

#include "http/http_client.h"

namespace attune::http {
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

TEST(PercentEncode, EscapesSpaceAndReservedBytes) {
  EXPECT_EQ(percentEncode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(percentEncode("app in (a,b)"), "app%20in%20%28a%2Cb%29");
  EXPECT_EQ(percentEncode("a=b&c/d*"), "a%3Db%26c%2Fd%2A");
}

TEST(HttpResponse, HeaderLookupIsCaseInsensitive) {
  HttpResponse r{200, "", {{"Content-Type", "application/json"}, {"Retry-After", "3"}}};
  EXPECT_EQ(r.header("retry-after"), "3");
  EXPECT_EQ(r.header("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(r.header("Missing"), std::nullopt);
}

TEST(MethodName, NamesEveryMethod) {
  using M = HttpRequest::Method;
  EXPECT_EQ(methodName(M::kGet), "GET");
  EXPECT_EQ(methodName(M::kPost), "POST");
  EXPECT_EQ(methodName(M::kPut), "PUT");
  EXPECT_EQ(methodName(M::kPatch), "PATCH");
  EXPECT_EQ(methodName(M::kDelete), "DELETE");
}

// A transport without its own stream(): the default splits the whole body into lines.
class CannedTransport final : public HttpTransport {
 public:
  explicit CannedTransport(HttpResponse response) : response_(std::move(response)) {}
  Result<HttpResponse> send(const HttpRequest&) override { return response_; }

 private:
  HttpResponse response_;
};

TEST(HttpTransportStream, DefaultSplitsTheBodyIntoLines) {
  CannedTransport transport(HttpResponse{200, "a\r\n\nb\nc", {}});
  std::vector<std::string> lines;
  auto r =
      transport.stream({}, [&](std::string_view l) { return lines.emplace_back(l), true; }, {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(r->body.empty());
}

TEST(HttpTransportStream, DefaultStopsWhenTheHandlerSaysSo) {
  CannedTransport transport(HttpResponse{200, "a\nb\nc\n", {}});
  std::vector<std::string> lines;
  ASSERT_TRUE(
      transport.stream({}, [&](std::string_view l) { return lines.emplace_back(l) != "b"; }, {}));
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b"}));
}

TEST(HttpTransportStream, DefaultReturnsAnErrorBodyWhole) {
  CannedTransport transport(HttpResponse{410, "line1\nline2\n", {}});
  int calls = 0;
  auto r = transport.stream({}, [&](std::string_view) { return ++calls, true; }, {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 410);
  EXPECT_EQ(r->body, "line1\nline2\n");
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace attune::http
