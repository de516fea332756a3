// http_message.h: request parsing (complete, partial, chunked, malformed) and response framing.
#include "http/server_message.h"

#include <gtest/gtest.h>

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
