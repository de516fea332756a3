#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include <unistd.h>

#include "http/http_client.h"
#include "support/prometheus/local_http_server.h"
#include "unit/http/raw_request.h"

namespace attune::http {
namespace {

using attune::testing::LocalHttpServer;
using attune::testing::parseRawRequest;
using Method = HttpRequest::Method;

LocalHttpServer::Handler answer(int status, std::string body) {
  return [status, body](const std::string&) {
    return std::optional(LocalHttpServer::Reply{status, body, {}});
  };
}

TEST(CurlHttpClient, SendsEveryMethodWithItsBodyAndContentType) {
  LocalHttpServer server(answer(200, "{}"));
  CurlHttpClient client({});
  for (auto [method, name] :
       {std::pair{Method::kPut, "PUT"}, {Method::kPatch, "PATCH"}, {Method::kPost, "POST"}}) {
    auto r = client.send({.method = method,
                          .url = server.address() + "/apis/x?y=1",
                          .body = R"({"a":1})",
                          .contentType = "application/merge-patch+json"});
    ASSERT_TRUE(r.has_value()) << r.error().toString();
    EXPECT_EQ(r->status, 200);
    const auto req = parseRawRequest(server.requests().back());
    EXPECT_EQ(req.method, name);
    EXPECT_EQ(req.target, "/apis/x?y=1");
    EXPECT_EQ(req.header("Content-Type"), "application/merge-patch+json");
    EXPECT_EQ(req.body, R"({"a":1})");
  }
  ASSERT_TRUE(client.send({.method = Method::kDelete, .url = server.address() + "/d"}));
  EXPECT_EQ(parseRawRequest(server.requests().back()).method, "DELETE");
  ASSERT_TRUE(client.send({.method = Method::kGet, .url = server.address() + "/g"}));
  EXPECT_EQ(parseRawRequest(server.requests().back()).method, "GET");
  EXPECT_EQ(parseRawRequest(server.requests().back()).body, "");
}

TEST(CurlHttpClient, ReReadsTheBearerTokenFileWhenItChanges) {
  LocalHttpServer server(answer(200, "{}"));
  const auto dir = std::filesystem::temp_directory_path() /
                   ("attune_http_token_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto tokenFile = dir / "token";
  std::ofstream(tokenFile) << "first\n";
  CurlHttpClient client({.bearerTokenFile = tokenFile});
  ASSERT_TRUE(client.send({.url = server.address() + "/"}));
  EXPECT_EQ(parseRawRequest(server.requests().back()).header("Authorization"), "Bearer first");
  std::ofstream(tokenFile) << "rotated-token\n";
  ASSERT_TRUE(client.send({.url = server.address() + "/"}));
  EXPECT_EQ(parseRawRequest(server.requests().back()).header("Authorization"),
            "Bearer rotated-token");
  std::filesystem::remove_all(dir);
}

TEST(CurlHttpClient, StreamDeliversEachLine) {
  LocalHttpServer server(answer(200, "{\"n\":1}\n\n{\"n\":2}\r\n{\"n\":3}"));
  CurlHttpClient client({});
  std::vector<std::string> lines;
  auto r = client.stream({.url = server.address() + "/watch"},
                         [&](std::string_view line) { return lines.emplace_back(line), true; }, {});
  ASSERT_TRUE(r.has_value()) << r.error().toString();
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(r->body.empty());
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"n\":1}", "{\"n\":2}", "{\"n\":3}"}));
}

TEST(CurlHttpClient, StreamEndsWhenTheHandlerReturnsFalse) {
  LocalHttpServer server(answer(200, "a\nb\nc\n"));
  CurlHttpClient client({});
  std::vector<std::string> lines;
  auto r =
      client.stream({.url = server.address() + "/watch"},
                    [&](std::string_view line) { return lines.emplace_back(line) != "a"; }, {});
  ASSERT_TRUE(r.has_value()) << r.error().toString();
  EXPECT_EQ(lines, (std::vector<std::string>{"a"}));
}

TEST(CurlHttpClient, StreamReturnsAnErrorStatusWithItsBody) {
  LocalHttpServer server(answer(410, R"({"kind":"Status","code":410})"));
  CurlHttpClient client({});
  int calls = 0;
  auto r = client.stream({.url = server.address() + "/watch"},
                         [&](std::string_view) { return ++calls, true; }, {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 410);
  EXPECT_EQ(r->body, R"({"kind":"Status","code":410})");
  EXPECT_EQ(calls, 0);
}

TEST(CurlHttpClient, StreamStopsWhenAskedFromAnotherThread) {
  std::promise<void> received;
  LocalHttpServer server([&received](const std::string&) {
    received.set_value();
    return std::optional<LocalHttpServer::Reply>();  // never answers
  });
  CurlHttpClient client({});
  std::stop_source stop;
  Result<HttpResponse> result = fail(ErrorCode::kInternal, "not run");
  std::thread reader([&] {
    // The timeout only bounds a broken stop: the test fails rather than hangs.
    result = client.stream(
        {.url = server.address() + "/watch", .timeout = std::chrono::seconds(30)},
        [](std::string_view) { return true; }, stop.get_token());
  });
  received.get_future().wait();
  stop.request_stop();
  reader.join();
  EXPECT_TRUE(result.has_value()) << result.error().toString();
}

TEST(CurlHttpClient, ReceivePassesA2xxBodyAsItArrivesAndReturnsOthersWhole) {
  std::string big(1 << 20, 'x');  // more than one write of libcurl's
  big[12345] = 'y';
  LocalHttpServer ok(answer(200, big));
  CurlHttpClient client({});
  std::string received;
  std::size_t calls = 0;
  auto r = client.receive({.url = ok.address() + "/q"}, [&](std::string_view bytes) {
    received.append(bytes);
    return ++calls, true;
  });
  ASSERT_TRUE(r.has_value()) << r.error().toString();
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(r->body.empty());
  EXPECT_EQ(received, big);
  EXPECT_GT(calls, 1u);

  LocalHttpServer failing(answer(503, "busy"));
  calls = 0;
  r = client.receive({.url = failing.address() + "/q"},
                     [&](std::string_view) { return ++calls, true; });
  ASSERT_TRUE(r.has_value()) << r.error().toString();
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->body, "busy");
  EXPECT_EQ(calls, 0u);
}

TEST(CurlHttpClient, ReceiveEndsWhenTheHandlerReturnsFalse) {
  LocalHttpServer server(answer(200, std::string(1 << 20, 'x')));
  CurlHttpClient client({});
  std::size_t calls = 0;
  auto r = client.receive({.url = server.address() + "/q"},
                          [&](std::string_view) { return ++calls, false; });
  ASSERT_TRUE(r.has_value()) << r.error().toString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(calls, 1u);
  // The handle serves the next request.
  std::string received;
  r = client.receive({.url = server.address() + "/q"},
                     [&](std::string_view bytes) { return received.append(bytes), true; });
  ASSERT_TRUE(r.has_value()) << r.error().toString();
  EXPECT_EQ(received.size(), std::size_t{1} << 20);
}

TEST(CurlHttpClient, RefusedConnectionIsUnavailable) {
  int port = 0;
  { port = LocalHttpServer(answer(200, "")).port(); }  // closed again: nothing listens
  CurlHttpClient client({});
  auto r = client.send({.url = "http://127.0.0.1:" + std::to_string(port) + "/"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("GET http://127.0.0.1"), std::string::npos);
}

}  // namespace
}  // namespace attune::http
