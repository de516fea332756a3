#include "metrics/prometheus/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <iterator>
#include <mutex>

namespace attune::metrics {
namespace {

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::string_view trim(std::string_view s) {
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

void appendFormEscaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '*') {
      out += ch;
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
}

size_t appendBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

// Collects the headers of the last response: a new status line (after a redirect or a
// "100 Continue") starts the list again.
size_t appendHeader(char* data, size_t size, size_t count, void* user) {
  auto& headers = *static_cast<std::vector<HttpHeader>*>(user);
  const std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    headers.clear();
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    headers.emplace_back(std::string(trim(line.substr(0, colon))),
                         std::string(trim(line.substr(colon + 1))));
  }
  return size * count;
}

// Frees a curl_slist when the request is done.
struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  bool add(const std::string& line) {
    curl_slist* next = curl_slist_append(list, line.c_str());
    if (next == nullptr) return false;
    list = next;
    return true;
  }
};

void initCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

std::optional<std::string_view> HttpResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (equalsIgnoreCase(key, name)) return value;
  }
  return std::nullopt;
}

std::string formEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [key, value] : fields) {
    if (!out.empty()) out += '&';
    appendFormEscaped(out, key);
    out += '=';
    appendFormEscaped(out, value);
  }
  return out;
}

CurlHttpClient::CurlHttpClient(HttpClientOptions options) : options_(std::move(options)) {
  initCurlOnce();
  curl_ = curl_easy_init();
}

CurlHttpClient::~CurlHttpClient() {
  if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(curl_));
}

Result<std::string> CurlHttpClient::bearerToken() {
  const auto& path = options_.bearerTokenFile;
  if (path.empty()) return options_.bearerToken;
  std::error_code ec;
  const auto mtime = std::filesystem::last_write_time(path, ec);
  const auto size = ec ? 0 : std::filesystem::file_size(path, ec);
  if (ec) {
    return fail(ErrorCode::kNotFound,
                "cannot read bearer token file " + path.string() + ": " + ec.message());
  }
  if (tokenMtime_ == mtime && tokenSize_ == size) return cachedToken_;
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    return fail(ErrorCode::kNotFound, "cannot read bearer token file " + path.string());
  }
  cachedToken_ = std::string(trim(text));
  tokenMtime_ = mtime;
  tokenSize_ = size;
  return cachedToken_;
}

Result<HttpResponse> CurlHttpClient::send(const HttpRequest& request) {
  auto* curl = static_cast<CURL*>(curl_);
  if (curl == nullptr) return fail(ErrorCode::kInternal, "libcurl could not be initialised");
  auto token = bearerToken();
  if (!token) return std::unexpected(token.error());

  HeaderList headers;
  bool headersOk = headers.add("Expect:");  // no "100 Continue" round trip for large bodies
  if (!token->empty()) headersOk = headersOk && headers.add("Authorization: Bearer " + *token);
  if (!request.contentType.empty()) {
    headersOk = headersOk && headers.add("Content-Type: " + request.contentType);
  }
  for (const auto* list : std::array{&std::as_const(options_.headers), &request.headers}) {
    for (const auto& [name, value] : *list)
      headersOk = headersOk && headers.add(name + ": " + value);
  }
  if (!headersOk) return fail(ErrorCode::kInternal, "out of memory building request headers");

  HttpResponse response;
  char errorBuffer[CURL_ERROR_SIZE] = {};
  const Duration timeout = request.timeout.value_or(options_.timeout);
  const auto timeoutMs = std::chrono::ceil<std::chrono::milliseconds>(timeout).count();

  curl_easy_reset(curl);  // keeps the connection cache
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errorBuffer);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(std::max<std::int64_t>(timeoutMs, 1)));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, appendHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  if (request.method == HttpRequest::Method::kPost) {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  }
  if (options_.basicAuth) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl, CURLOPT_USERNAME, options_.basicAuth->username.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.basicAuth->password.c_str());
  }
  if (!options_.caFile.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.caFile.c_str());
  if (options_.insecureSkipVerify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }

  const CURLcode code = curl_easy_perform(curl);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);  // errorBuffer goes out of scope
  if (code != CURLE_OK) {
    std::string reason = errorBuffer[0] != '\0' ? errorBuffer : curl_easy_strerror(code);
    if (code == CURLE_OPERATION_TIMEDOUT) {
      reason = "timed out after " + formatDuration(timeout) + " (" + reason + ")";
    } else if (code == CURLE_COULDNT_CONNECT) {
      reason = "connection refused or unreachable (" + reason + ")";
    }
    return fail(ErrorCode::kUnavailable, request.url + ": " + reason);
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace attune::metrics
