// A small HTTP client for Attune's outbound calls to Prometheus-compatible servers.
//
// HttpTransport is the seam: PrometheusClient sends every request through one, so unit tests
// substitute a fake and the integration tests use CurlHttpClient, the libcurl implementation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/time.h"

namespace attune::metrics {

using HttpHeader = std::pair<std::string, std::string>;

struct HttpRequest {
  enum class Method { kGet, kPost };
  Method method = Method::kGet;
  std::string url;
  std::string body;         // sent only with kPost
  std::string contentType;  // e.g. "application/x-www-form-urlencoded"; empty = none
  std::vector<HttpHeader> headers;
  std::optional<Duration> timeout;  // overrides the client's default for this request
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::vector<HttpHeader> headers;  // of the final response, names as sent

  // The first header named `name` (case-insensitive), or nullopt.
  std::optional<std::string_view> header(std::string_view name) const;
};

// Sends one request and waits for the whole response. A response with any HTTP status is a
// value; only a failure to get a response (refused connection, timeout, TLS failure) is an
// Error, with code kUnavailable and the reason in the message. Not thread-safe.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual Result<HttpResponse> send(const HttpRequest& request) = 0;
};
using HttpTransportPtr = std::unique_ptr<HttpTransport>;

struct BasicAuth {
  std::string username;
  std::string password;
};

// Authentication, headers and TLS settings applied to every request a client sends.
struct HttpClientOptions {
  // "Authorization: Bearer <token>". bearerTokenFile, when set, wins: it is re-read whenever
  // its modification time or size changes (projected service-account tokens rotate).
  std::string bearerToken;
  std::filesystem::path bearerTokenFile;
  std::optional<BasicAuth> basicAuth;
  std::vector<HttpHeader> headers;  // extra headers, e.g. "X-Scope-OrgID" for Mimir
  std::filesystem::path caFile;     // PEM bundle to verify the server; empty = system store
  bool insecureSkipVerify = false;  // disables certificate and host name verification
  Duration timeout = std::chrono::seconds(30);  // whole request, connect included
};

// application/x-www-form-urlencoded: unreserved bytes (ALPHA, DIGIT, "-._~*") as is, space as
// "+", every other byte as %XX (upper-case hex); pairs joined "k=v&k=v" in the given order.
std::string formEncode(const std::vector<std::pair<std::string, std::string>>& fields);

// HttpTransport over one libcurl easy handle (connections are reused between requests).
// Credentials never appear in errors or logs.
class CurlHttpClient final : public HttpTransport {
 public:
  explicit CurlHttpClient(HttpClientOptions options);
  ~CurlHttpClient() override;
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  Result<HttpResponse> send(const HttpRequest& request) override;

 private:
  // The bearer token to send now ("" for none), re-reading the token file if it changed.
  Result<std::string> bearerToken();

  HttpClientOptions options_;
  void* curl_ = nullptr;  // CURL*; kept opaque so this header does not include curl.h
  std::string cachedToken_;
  std::optional<std::filesystem::file_time_type> tokenMtime_;
  std::uintmax_t tokenSize_ = 0;
};

}  // namespace attune::metrics
