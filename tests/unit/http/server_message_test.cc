// http_message.h: request parsing (complete, partial, chunked, malformed) and response framing.
#include "http/server_message.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace attune::http::server {
namespace {

TEST(ParseRequest, ReadsLineHeadersQueryAndBody) {
  const std::string raw =
      "PATCH /api/v1/namespaces/a%20b/pods/web?labelSelector=app%3Dweb&watch=1 HTTP/1.1\r\n"
      "Host: x\r\nContent-Type: application/merge-patch+json\r\nContent-Length: 2\r\n\r\n{}NEXT";
  ParsedRequest p = parseRequest(raw, 1024);
  ASSERT_EQ(p.outcome, ParseOutcome::kComplete);
  EXPECT_EQ(p.consumed, raw.size() - 4);
  EXPECT_EQ(p.request.method, "PATCH");
  EXPECT_EQ(p.request.path, "/api/v1/namespaces/a b/pods/web");
  EXPECT_EQ(p.request.param("labelSelector"), "app=web");
  EXPECT_TRUE(p.request.hasParam("watch"));
  EXPECT_EQ(p.request.header("content-type"), "application/merge-patch+json");
  EXPECT_EQ(p.request.body, "{}");
  EXPECT_TRUE(p.request.keepAlive());
}

TEST(ParseRequest, EveryPrefixIsIncomplete) {
  const std::string raw = "POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello";
  for (std::size_t n = 0; n < raw.size(); ++n) {
    EXPECT_EQ(parseRequest(raw.substr(0, n), 1024).outcome, ParseOutcome::kIncomplete) << n;
  }
  EXPECT_EQ(parseRequest(raw, 1024).outcome, ParseOutcome::kComplete);
}

TEST(ParseRequest, DechunksAChunkedBody) {
  const std::string raw =
      "POST /x HTTP/1.1\r\nTransfer-Encoding: "
      "chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n";
  ParsedRequest p = parseRequest(raw, 1024);
  ASSERT_EQ(p.outcome, ParseOutcome::kComplete);
  EXPECT_EQ(p.request.body, "abcde");
  EXPECT_EQ(p.consumed, raw.size());
  EXPECT_EQ(parseRequest(raw.substr(0, raw.size() - 2), 1024).outcome, ParseOutcome::kIncomplete);
}

TEST(ParseRequest, RejectsMalformedRequests) {
  EXPECT_EQ(parseRequest("GARBAGE\r\n\r\n", 1024).outcome, ParseOutcome::kInvalid);
  EXPECT_EQ(parseRequest("GET /x HTTP/2.0\r\n\r\n", 1024).outcome, ParseOutcome::kInvalid);
  ParsedRequest badLength = parseRequest("POST /x HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 1024);
  EXPECT_EQ(badLength.outcome, ParseOutcome::kInvalid);
  EXPECT_EQ(badLength.errorStatus, 400);
  ParsedRequest tooLarge = parseRequest("POST /x HTTP/1.1\r\nContent-Length: 99\r\n\r\n", 10);
  EXPECT_EQ(tooLarge.outcome, ParseOutcome::kInvalid);
  EXPECT_EQ(tooLarge.errorStatus, 413);
  EXPECT_EQ(parseRequest("GET /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 10).errorStatus,
            501);
}

TEST(ParseRequest, ConnectionCloseAndHttp10EndTheConnection) {
  EXPECT_FALSE(parseRequest("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 10).request.keepAlive());
  EXPECT_FALSE(parseRequest("GET / HTTP/1.0\r\n\r\n", 10).request.keepAlive());
  EXPECT_TRUE(
      parseRequest("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 10).request.keepAlive());
}

// Feeds `raw` to a RequestParser `step` bytes at a time, as a connection would.
ParsedRequest parseInSteps(const std::string& raw, std::size_t step, RequestLimits limits = {}) {
  RequestParser parser(limits);
  ParsedRequest last;
  for (std::size_t n = step; n < raw.size() + step; n += step) {
    last = parser.next(std::string_view(raw).substr(0, std::min(n, raw.size())));
    if (last.outcome != ParseOutcome::kIncomplete) return last;
  }
  return last;
}

TEST(RequestParser, ResumedParsingGivesTheOneShotResult) {
  const std::string requests[] = {
      "\r\n\r\nPATCH /a%20b?x=1 HTTP/1.1\r\nA: 1\r\nA: 2\r\nContent-Length: 5\r\n\r\nhelloNEXT",
      "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;e=1\r\nde\r\n0\r\n"
      "T: 1\r\n\r\nNEXT",
      "GET / HTTP/1.0\r\n\r\n",
  };
  for (const std::string& raw : requests) {
    const ParsedRequest whole = parseRequest(raw, 1024);
    ASSERT_EQ(whole.outcome, ParseOutcome::kComplete) << raw;
    for (std::size_t step : {1, 2, 3, 7}) {
      const ParsedRequest p = parseInSteps(raw, step);
      ASSERT_EQ(p.outcome, ParseOutcome::kComplete) << raw << " step " << step;
      EXPECT_EQ(p.consumed, whole.consumed);
      EXPECT_EQ(p.request.body, whole.request.body);
      EXPECT_EQ(p.request.headers, whole.request.headers);
      EXPECT_EQ(p.request.path, whole.request.path);
    }
  }
}

TEST(RequestParser, StartsOverAfterACompleteRequest) {
  RequestParser parser;
  const std::string two = "GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 1\r\n\r\nx";
  ParsedRequest first = parser.next(two);
  ASSERT_EQ(first.outcome, ParseOutcome::kComplete);
  EXPECT_EQ(first.request.path, "/a");
  ParsedRequest second = parser.next(std::string_view(two).substr(first.consumed));
  ASSERT_EQ(second.outcome, ParseOutcome::kComplete);
  EXPECT_EQ(second.request.path, "/b");
  EXPECT_EQ(second.request.body, "x");
}

TEST(RequestParser, RefusesHeadsOverTheirLimits) {
  const RequestLimits limits{.maxHeadBytes = 256, .maxHeaderCount = 3, .maxBodyBytes = 16};
  // Unterminated and over the limit, terminated but over it, and endless empty lines.
  EXPECT_EQ(parseInSteps("GET / HTTP/1.1\r\nX: " + std::string(300, 'x'), 5, limits).errorStatus,
            431);
  EXPECT_EQ(parseInSteps("GET / HTTP/1.1\r\nX: " + std::string(300, 'x') + "\r\n\r\n", 400, limits)
                .errorStatus,
            431);
  std::string crlfs;
  for (int i = 0; i < 200; ++i) crlfs += "\r\n";
  EXPECT_EQ(parseInSteps(crlfs, 3, limits).errorStatus, 431);
  const ParsedRequest many =
      parseRequest("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", 16);
  EXPECT_EQ(many.outcome, ParseOutcome::kComplete);  // the default allows 100
  RequestParser strict(limits);
  const ParsedRequest tooMany =
      strict.next("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n");
  EXPECT_EQ(tooMany.outcome, ParseOutcome::kInvalid);
  EXPECT_EQ(tooMany.errorStatus, 431);
  EXPECT_EQ(tooMany.error, "too many header fields");
}

TEST(RequestParser, RefusesChunkedBodiesOverTheirLimits) {
  const RequestLimits limits{.maxHeadBytes = 128, .maxHeaderCount = 10, .maxBodyBytes = 8};
  const std::string head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(parseInSteps(head + "5\r\nabcde\r\n5\r\nfghij\r\n0\r\n\r\n", 1, limits).errorStatus,
            413);
  EXPECT_EQ(parseInSteps(head + "5;" + std::string(2000, 'e'), 64, limits).errorStatus, 400);
  std::string trailer = head + "1\r\na\r\n0\r\n";
  for (int i = 0; i < 20; ++i) trailer += "T: 1234567\r\n";
  EXPECT_EQ(parseInSteps(trailer, 4, limits).errorStatus, 431);
  EXPECT_EQ(parseInSteps(head + "2\r\nabX\r\n", 1, limits).errorStatus, 400);
}

TEST(PercentDecode, DecodesEscapesAndRejectsBadOnes) {
  EXPECT_EQ(percentDecode("a%2Fb+c", true), "a/b c");
  EXPECT_EQ(percentDecode("a+c", false), "a+c");
  EXPECT_EQ(percentDecode("a%2", false), std::nullopt);
  EXPECT_EQ(percentDecode("%zz", false), std::nullopt);
}

TEST(ResponseFraming, HeadAndChunks) {
  HttpResponse r;
  r.status = 404;
  r.body = "{}";
  r.headers.emplace_back("Retry-After", "1");
  EXPECT_EQ(formatResponseHead(r, true),
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
            "Retry-After: 1\r\n\r\n");
  r.stream = [](ChunkSink&) {};
  EXPECT_EQ(formatResponseHead(r, false),
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nTransfer-Encoding: "
            "chunked\r\nConnection: close\r\nRetry-After: 1\r\n\r\n");
  EXPECT_EQ(encodeChunk(std::string(26, 'x')), "1a\r\n" + std::string(26, 'x') + "\r\n");
  EXPECT_EQ(encodeChunk(""), "0\r\n\r\n");
}

}  // namespace
}  // namespace attune::http::server
