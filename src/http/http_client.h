// Attune's HTTP client for outbound calls: Prometheus-compatible servers and the Kubernetes API
// server.
//
// HttpTransport is the seam: callers send every request through one, so unit tests substitute a
// fake and everything else uses CurlHttpClient, the libcurl implementation.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/time.h"

namespace attune::http {

using HttpHeader = std::pair<std::string, std::string>;

struct HttpRequest {
  enum class Method { kGet, kPost, kPut, kPatch, kDelete };
  Method method = Method::kGet;
  std::string url;
  std::string body;         // sent with kPost, kPut, kPatch, and kDelete when not empty
  std::string contentType;  // e.g. "application/merge-patch+json"; empty = none
  std::vector<HttpHeader> headers;
  std::optional<Duration> timeout;  // overrides the client's default for this request
};

// "GET", "POST", "PUT", "PATCH", "DELETE".
std::string_view methodName(HttpRequest::Method method);

struct HttpResponse {
  long status = 0;
  std::string body;
  std::vector<HttpHeader> headers;  // of the final response, names as sent

  // The first header named `name` (case-insensitive), or nullopt.
  std::optional<std::string_view> header(std::string_view name) const;
};

// Called with each line of a streamed 2xx body, without its "\n" (and a trailing "\r"); empty
// lines are skipped. Returning false ends the stream.
using LineHandler = std::function<bool(std::string_view line)>;

// Called with the bytes of a 2xx body as they arrive, in order. Returning false ends the
// transfer (nothing more is wanted).
using BodyHandler = std::function<bool(std::string_view bytes)>;

// Sends one request and waits for the whole response. A response with any HTTP status is a
// value; only a failure to get a response (refused connection, timeout, TLS failure) is an
// Error, with code kUnavailable and the reason in the message. Not thread-safe: one transport
// per thread.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual Result<HttpResponse> send(const HttpRequest& request) = 0;

  // A long-lived request whose body is a sequence of lines (a Kubernetes watch). For a 2xx
  // response each line is passed to `onLine` as it arrives and the returned body is empty; for
  // any other status the body is collected and returned whole, and `onLine` is not called.
  // Returns when the server ends the body, `onLine` returns false, or `stop` is requested (from
  // any thread) — all three are successes. request.timeout, when set, bounds the whole stream;
  // the client's default timeout does not apply. Errors as for send(). The default
  // implementation calls send() and splits the body (for fakes); it cannot be stopped early.
  virtual Result<HttpResponse> stream(const HttpRequest& request, const LineHandler& onLine,
                                      std::stop_token stop);

  // send(), except that a 2xx body is passed to `onBody` as it arrives (the returned body is
  // empty) so that it need not be held whole; any other status' body is returned whole and
  // `onBody` is not called. `onBody` returning false ends the transfer, a success. Timeouts and
  // errors as for send(). The default implementation calls send() and passes the body at once
  // (for fakes).
  virtual Result<HttpResponse> receive(const HttpRequest& request, const BodyHandler& onBody);
};
using HttpTransportPtr = std::unique_ptr<HttpTransport>;

struct BasicAuth {
  std::string username;
  std::string password;
};

// Authentication, headers and TLS settings applied to every request a client sends. PEM data
// fields, when not empty, win over the matching file fields.
struct HttpClientOptions {
  // "Authorization: Bearer <token>". bearerTokenFile, when set, wins: it is re-read whenever
  // its modification time or size changes (projected service-account tokens rotate).
  std::string bearerToken;
  std::filesystem::path bearerTokenFile;
  std::optional<BasicAuth> basicAuth;
  std::vector<HttpHeader> headers;  // extra headers, e.g. "X-Scope-OrgID" for Mimir
  std::filesystem::path caFile;     // PEM bundle to verify the server; empty = system store
  std::string caData;               // PEM bundle as data
  // Client certificate and private key (PEM) for mutual TLS.
  std::filesystem::path clientCertFile;
  std::string clientCertData;
  std::filesystem::path clientKeyFile;
  std::string clientKeyData;
  bool insecureSkipVerify = false;              // disables certificate and host name verification
  Duration timeout = std::chrono::seconds(30);  // whole request, connect included
  Duration connectTimeout = std::chrono::seconds(10);
};

// application/x-www-form-urlencoded: unreserved bytes (ALPHA, DIGIT, "-._~*") as is, space as
// "+", every other byte as %XX (upper-case hex); pairs joined "k=v&k=v" in the given order.
std::string formEncode(const std::vector<std::pair<std::string, std::string>>& fields);

// Percent-encoding of a URL query value or path segment (RFC 3986): unreserved bytes
// (ALPHA, DIGIT, "-._~") as is, every other byte (space included) as %XX.
std::string percentEncode(std::string_view s);

// HttpTransport over one libcurl easy handle (connections are reused between requests).
// Credentials never appear in errors or logs.
class CurlHttpClient final : public HttpTransport {
 public:
  explicit CurlHttpClient(HttpClientOptions options);
  ~CurlHttpClient() override;
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  Result<HttpResponse> send(const HttpRequest& request) override;
  Result<HttpResponse> stream(const HttpRequest& request, const LineHandler& onLine,
                              std::stop_token stop) override;
  Result<HttpResponse> receive(const HttpRequest& request, const BodyHandler& onBody) override;

 private:
  struct Transfer;
  // The bearer token to send now ("" for none), re-reading the token file if it changed.
  Result<std::string> bearerToken();
  // Sets every option of one request on the easy handle; `transfer` must outlive the perform.
  Result<void> prepare(const HttpRequest& request, Transfer& transfer, bool streaming);
  // Sends one request on the easy handle (the client's timeout unless the request has one),
  // its callbacks writing into `transfer`.
  Result<HttpResponse> perform(const HttpRequest& request, Transfer& transfer);
  // The Error for a failed perform.
  Error transportError(const HttpRequest& request, int code, const char* errorBuffer,
                       Duration timeout) const;

  HttpClientOptions options_;
  void* curl_ = nullptr;  // CURL*; kept opaque so this header does not include curl.h
  std::string cachedToken_;
  std::optional<std::filesystem::file_time_type> tokenMtime_;
  std::uintmax_t tokenSize_ = 0;
};

}  // namespace attune::http
