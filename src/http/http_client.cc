#include "http/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <iterator>
#include <mutex>

namespace attune::http {
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

constexpr char kHex[] = "0123456789ABCDEF";

void appendEscaped(std::string& out, char ch) {
  const auto c = static_cast<unsigned char>(ch);
  out += '%';
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

void appendFormEscaped(std::string& out, std::string_view s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '*') {
      out += ch;
    } else if (c == ' ') {
      out += '+';
    } else {
      appendEscaped(out, ch);
    }
  }
}

// Passes every complete line in `buffer` to `onLine` (skipping empty ones) and keeps the
// unfinished rest. False when the handler asked to stop.
bool deliverLines(std::string& buffer, const LineHandler& onLine) {
  size_t start = 0;
  bool keepGoing = true;
  for (size_t nl = buffer.find('\n'); nl != std::string::npos && keepGoing;
       nl = buffer.find('\n', start)) {
    std::string_view line(buffer.data() + start, nl - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (!line.empty()) keepGoing = onLine(line);
    start = nl + 1;
  }
  buffer.erase(0, start);
  return keepGoing;
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
  HeaderList() = default;
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
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

long millis(Duration d) {
  return static_cast<long>(
      std::max<std::int64_t>(std::chrono::ceil<std::chrono::milliseconds>(d).count(), 1));
}

void setBlob(CURL* curl, CURLoption option, const std::string& pem) {
  curl_blob blob{};
  blob.data = const_cast<char*>(pem.data());  // copied by libcurl (CURL_BLOB_COPY)
  blob.len = pem.size();
  blob.flags = CURL_BLOB_COPY;
  curl_easy_setopt(curl, option, &blob);
}

}  // namespace

// Per-request state the libcurl callbacks write into.
struct CurlHttpClient::Transfer {
  CURL* curl = nullptr;
  HttpResponse response;
  HeaderList headers;
  const LineHandler* onLine = nullptr;  // set for streaming requests
  const BodyHandler* onBody = nullptr;  // set for received bodies
  std::string pending;                  // unfinished line of a streamed body
  bool stoppedByHandler = false;
  std::array<char, CURL_ERROR_SIZE> errorBuffer{};

  static size_t write(char* data, size_t size, size_t count, void* user) {
    auto& t = *static_cast<Transfer*>(user);
    const size_t n = size * count;
    if (t.onLine == nullptr && t.onBody == nullptr) {
      t.response.body.append(data, n);
      return n;
    }
    long status = 0;
    curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status >= 300) {
      t.response.body.append(data, n);
      return n;
    }
    if (t.onBody != nullptr) {
      if ((*t.onBody)(std::string_view(data, n))) return n;
      t.stoppedByHandler = true;
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    t.pending.append(data, n);
    if (!deliverLines(t.pending, *t.onLine)) {
      t.stoppedByHandler = true;
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    return n;
  }
};

std::string_view methodName(HttpRequest::Method method) {
  switch (method) {
    case HttpRequest::Method::kGet:
      return "GET";
    case HttpRequest::Method::kPost:
      return "POST";
    case HttpRequest::Method::kPut:
      return "PUT";
    case HttpRequest::Method::kPatch:
      return "PATCH";
    case HttpRequest::Method::kDelete:
      return "DELETE";
  }
  return "GET";
}

std::optional<std::string_view> HttpResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (equalsIgnoreCase(key, name)) return value;
  }
  return std::nullopt;
}

Result<HttpResponse> HttpTransport::stream(const HttpRequest& request, const LineHandler& onLine,
                                           std::stop_token stop) {
  auto response = send(request);
  if (!response || response->status < 200 || response->status >= 300) return response;
  std::string body = std::move(response->body);
  response->body.clear();
  if (!body.ends_with('\n')) body += '\n';
  deliverLines(body, [&](std::string_view line) { return !stop.stop_requested() && onLine(line); });
  return response;
}

Result<HttpResponse> HttpTransport::receive(const HttpRequest& request, const BodyHandler& onBody) {
  auto response = send(request);
  if (!response || response->status < 200 || response->status >= 300) return response;
  const std::string body = std::move(response->body);
  response->body.clear();
  if (!body.empty()) onBody(body);
  return response;
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

std::string percentEncode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      appendEscaped(out, ch);
    }
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

Result<void> CurlHttpClient::prepare(const HttpRequest& request, Transfer& transfer,
                                     bool streaming) {
  auto* curl = static_cast<CURL*>(curl_);
  if (curl == nullptr) return fail(ErrorCode::kInternal, "libcurl could not be initialised");
  auto token = bearerToken();
  if (!token) return std::unexpected(token.error());

  HeaderList& headers = transfer.headers;
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

  transfer.curl = curl;
  curl_easy_reset(curl);  // keeps the connection cache
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, transfer.errorBuffer.data());
  const std::optional<Duration> timeout =
      streaming ? request.timeout : request.timeout.value_or(options_.timeout);
  if (timeout) curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, millis(*timeout));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, millis(options_.connectTimeout));
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &Transfer::write);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, appendHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer.response.headers);

  const bool hasBody = request.method != HttpRequest::Method::kGet &&
                       (request.method != HttpRequest::Method::kDelete || !request.body.empty());
  if (request.method == HttpRequest::Method::kGet) {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else {
    if (request.method != HttpRequest::Method::kPost) {
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST,
                       std::string(methodName(request.method)).c_str());
    }
    if (hasBody) {
      curl_easy_setopt(curl, CURLOPT_POST, 1L);
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
    }
  }
  if (options_.basicAuth) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl, CURLOPT_USERNAME, options_.basicAuth->username.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.basicAuth->password.c_str());
  }
  if (!options_.caData.empty()) {
    setBlob(curl, CURLOPT_CAINFO_BLOB, options_.caData);
  } else if (!options_.caFile.empty()) {
    curl_easy_setopt(curl, CURLOPT_CAINFO, options_.caFile.c_str());
  }
  if (!options_.clientCertData.empty()) {
    setBlob(curl, CURLOPT_SSLCERT_BLOB, options_.clientCertData);
  } else if (!options_.clientCertFile.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, options_.clientCertFile.c_str());
  }
  if (!options_.clientKeyData.empty()) {
    setBlob(curl, CURLOPT_SSLKEY_BLOB, options_.clientKeyData);
  } else if (!options_.clientKeyFile.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLKEY, options_.clientKeyFile.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
  curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
  if (options_.insecureSkipVerify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  return {};
}

Error CurlHttpClient::transportError(const HttpRequest& request, int code, const char* errorBuffer,
                                     Duration timeout) const {
  const auto curlCode = static_cast<CURLcode>(code);
  std::string reason = errorBuffer[0] != '\0' ? errorBuffer : curl_easy_strerror(curlCode);
  if (curlCode == CURLE_OPERATION_TIMEDOUT) {
    reason = "timed out after " + formatDuration(timeout) + " (" + reason + ")";
  } else if (curlCode == CURLE_COULDNT_CONNECT) {
    reason = "connection refused or unreachable (" + reason + ")";
  }
  return Error{ErrorCode::kUnavailable,
               std::string(methodName(request.method)) + " " + request.url + ": " + reason, ""};
}

Result<HttpResponse> CurlHttpClient::send(const HttpRequest& request) {
  Transfer transfer;
  return perform(request, transfer);
}

Result<HttpResponse> CurlHttpClient::receive(const HttpRequest& request,
                                             const BodyHandler& onBody) {
  Transfer transfer;
  transfer.onBody = &onBody;
  return perform(request, transfer);
}

Result<HttpResponse> CurlHttpClient::perform(const HttpRequest& request, Transfer& transfer) {
  if (auto ok = prepare(request, transfer, false); !ok) return std::unexpected(ok.error());
  auto* curl = static_cast<CURL*>(curl_);
  const CURLcode code = curl_easy_perform(curl);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);  // the buffer goes out of scope
  if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && transfer.stoppedByHandler)) {
    return std::unexpected(transportError(request, code, transfer.errorBuffer.data(),
                                          request.timeout.value_or(options_.timeout)));
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &transfer.response.status);
  return std::move(transfer.response);
}

Result<HttpResponse> CurlHttpClient::stream(const HttpRequest& request, const LineHandler& onLine,
                                            std::stop_token stop) {
  Transfer transfer;
  transfer.onLine = &onLine;
  if (auto ok = prepare(request, transfer, true); !ok) return std::unexpected(ok.error());
  auto* curl = static_cast<CURL*>(curl_);
  CURLM* multi = curl_multi_init();
  if (multi == nullptr) return fail(ErrorCode::kInternal, "libcurl could not be initialised");
  curl_multi_add_handle(multi, curl);

  CURLcode code = CURLE_OK;
  {
    // Wakes the poll below as soon as a stop is requested (curl_multi_wakeup is thread-safe).
    std::stop_callback wake(stop, [multi] { curl_multi_wakeup(multi); });
    int running = 1;
    while (running > 0 && !stop.stop_requested()) {
      if (curl_multi_perform(multi, &running) != CURLM_OK) break;
      if (running > 0) curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
    }
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg == CURLMSG_DONE) code = msg->data.result;
    }
  }
  curl_multi_remove_handle(multi, curl);
  curl_multi_cleanup(multi);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);

  if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && transfer.stoppedByHandler)) {
    return std::unexpected(transportError(request, code, transfer.errorBuffer.data(),
                                          request.timeout.value_or(Duration::zero())));
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &transfer.response.status);
  const bool ok = transfer.response.status >= 200 && transfer.response.status < 300;
  if (ok && !transfer.stoppedByHandler && !stop.stop_requested() && !transfer.pending.empty()) {
    transfer.pending += '\n';  // a last line without its newline
    deliverLines(transfer.pending, onLine);
  }
  return std::move(transfer.response);
}

}  // namespace attune::http
