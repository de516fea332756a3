#include "http/server_message.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace attune::http::server {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

ParsedRequest invalid(int status, std::string why) {
  ParsedRequest out;
  out.outcome = ParseOutcome::kInvalid;
  out.errorStatus = status;
  out.error = std::move(why);
  return out;
}

constexpr std::size_t kMaxChunkLine = 1024;

}  // namespace

std::string_view HttpRequest::header(std::string_view name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string_view() : std::string_view(it->second);
}

std::string_view HttpRequest::param(std::string_view name) const {
  auto it = query.find(name);
  return it == query.end() ? std::string_view() : std::string_view(it->second);
}

bool HttpRequest::keepAlive() const {
  const std::string connection = lower(header("connection"));
  if (minorVersion == 0) return connection.find("keep-alive") != std::string::npos;
  return connection.find("close") == std::string::npos;
}

std::optional<std::string> percentDecode(std::string_view text, bool plusIsSpace) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = hexValue(text[i + 1]);
      const int lo = hexValue(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plusIsSpace) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

HeaderMap parseQuery(std::string_view query) {
  HeaderMap out;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    std::string_view name = pair.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    out[percentDecode(name, true).value_or(std::string(name))] =
        percentDecode(value, true).value_or(std::string(value));
  }
  return out;
}

void RequestParser::reset() {
  start_ = 0;
  scanned_ = 0;
  headEnd_ = 0;
  request_ = HttpRequest{};
  chunked_ = false;
  length_ = 0;
  chunkPos_ = 0;
  inTrailer_ = false;
  trailerBytes_ = 0;
}

ParsedRequest RequestParser::next(std::string_view buffer) {
  ParsedRequest out = headComplete() ? parseBody(buffer) : parseHead(buffer);
  if (out.outcome != ParseOutcome::kIncomplete) reset();
  return out;
}

ParsedRequest RequestParser::complete(std::size_t end) {
  ParsedRequest out;
  out.outcome = ParseOutcome::kComplete;
  out.consumed = end;
  out.request = std::move(request_);
  return out;
}

ParsedRequest RequestParser::parseHead(std::string_view buffer) {
  // Empty lines before a request are skipped (RFC 9112 section 2.2); the search for the blank
  // line resumes three bytes back, as it may straddle the previous end.
  while (buffer.substr(start_, 2) == "\r\n") start_ += 2;
  const std::size_t from = std::max(start_, scanned_ > 3 ? scanned_ - 3 : 0);
  const std::size_t blank = buffer.find("\r\n\r\n", from);
  if (blank == std::string_view::npos) {
    scanned_ = buffer.size();
    // The empty lines before a request count against the head's limit, so an endless stream
    // of them is refused too.
    if (buffer.size() > limits_.maxHeadBytes) return invalid(431, "request head too large");
    return {};
  }
  if (blank + 4 > limits_.maxHeadBytes) return invalid(431, "request head too large");
  std::string_view head = buffer.substr(start_, blank - start_);
  HttpRequest& r = request_;

  const std::size_t lineEnd = head.find("\r\n");
  std::string_view line = head.substr(0, lineEnd);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || sp1 == 0) {
    return invalid(400, "malformed request line");
  }
  r.method = std::string(line.substr(0, sp1));
  r.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  std::string_view version = line.substr(sp2 + 1);
  if (version == "HTTP/1.1") {
    r.minorVersion = 1;
  } else if (version == "HTTP/1.0") {
    r.minorVersion = 0;
  } else {
    return invalid(400, "unsupported HTTP version");
  }
  if (r.target.empty() || r.target.front() != '/') return invalid(400, "malformed request target");
  const std::size_t q = r.target.find('?');
  auto path = percentDecode(std::string_view(r.target).substr(0, q), false);
  if (!path) return invalid(400, "malformed escape in the path");
  r.path = std::move(*path);
  if (q != std::string::npos) r.query = parseQuery(std::string_view(r.target).substr(q + 1));

  std::string_view rest =
      lineEnd == std::string_view::npos ? std::string_view() : head.substr(lineEnd + 2);
  std::size_t count = 0;
  while (!rest.empty()) {
    if (++count > limits_.maxHeaderCount) return invalid(431, "too many header fields");
    const std::size_t e = rest.find("\r\n");
    std::string_view h = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 2);
    const std::size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) return invalid(400, "malformed header");
    std::string name = lower(h.substr(0, colon));
    std::string value(trim(h.substr(colon + 1)));
    auto [it, inserted] = r.headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  }

  const std::string encoding = lower(r.header("transfer-encoding"));
  if (!encoding.empty()) {
    if (encoding != "chunked") return invalid(501, "unsupported transfer coding " + encoding);
    chunked_ = true;
  } else if (auto cl = r.header("content-length"); !cl.empty()) {
    auto [ptr, ec] = std::from_chars(cl.data(), cl.data() + cl.size(), length_);
    if (ec != std::errc() || ptr != cl.data() + cl.size()) {
      return invalid(400, "malformed Content-Length");
    }
    if (length_ > limits_.maxBodyBytes) return invalid(413, "request body too large");
  }
  headEnd_ = blank + 4;
  chunkPos_ = headEnd_;
  return parseBody(buffer);
}

ParsedRequest RequestParser::parseBody(std::string_view buffer) {
  if (chunked_) return readChunks(buffer);
  if (buffer.size() < headEnd_ + length_) return {};
  request_.body = std::string(buffer.substr(headEnd_, length_));
  return complete(headEnd_ + length_);
}

ParsedRequest RequestParser::readChunks(std::string_view buffer) {
  std::string& body = request_.body;
  while (true) {
    const std::size_t lineEnd = buffer.find("\r\n", chunkPos_);
    if (inTrailer_) {
      // Trailer fields up to an empty line; they count against the head's limit.
      const std::size_t seen =
          (lineEnd == std::string_view::npos ? buffer.size() : lineEnd) - chunkPos_;
      if (headEnd_ + trailerBytes_ + seen > limits_.maxHeadBytes) {
        return invalid(431, "request trailer too large");
      }
      if (lineEnd == std::string_view::npos) return {};
      if (lineEnd == chunkPos_) return complete(lineEnd + 2);
      trailerBytes_ += lineEnd + 2 - chunkPos_;
      chunkPos_ = lineEnd + 2;
      continue;
    }
    if (lineEnd == std::string_view::npos) {
      if (buffer.size() - chunkPos_ > kMaxChunkLine)
        return invalid(400, "chunk-size line too long");
      return {};
    }
    if (lineEnd - chunkPos_ > kMaxChunkLine) return invalid(400, "chunk-size line too long");
    std::string_view sizeText = buffer.substr(chunkPos_, lineEnd - chunkPos_);
    sizeText = sizeText.substr(0, sizeText.find(';'));  // chunk extensions
    sizeText = trim(sizeText);
    std::size_t size = 0;
    auto [ptr, ec] = std::from_chars(sizeText.data(), sizeText.data() + sizeText.size(), size, 16);
    if (sizeText.empty() || ec != std::errc() || ptr != sizeText.data() + sizeText.size()) {
      return invalid(400, "malformed chunk size");
    }
    if (size > limits_.maxBodyBytes - body.size()) return invalid(413, "request body too large");
    const std::size_t data = lineEnd + 2;
    if (size == 0) {
      inTrailer_ = true;
      chunkPos_ = data;
      continue;
    }
    if (buffer.size() < data + size + 2) return {};
    if (buffer.substr(data + size, 2) != "\r\n") return invalid(400, "chunk not followed by CRLF");
    body.append(buffer.substr(data, size));
    chunkPos_ = data + size + 2;
  }
}

ParsedRequest parseRequest(std::string_view buffer, std::size_t maxBodyBytes) {
  RequestParser parser(RequestLimits{.maxBodyBytes = maxBodyBytes});
  return parser.next(buffer);
}

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string formatResponseHead(const HttpResponse& response, bool keepAlive) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " ";
  out += reasonPhrase(response.status);
  out += "\r\n";
  if (response.stream || !response.body.empty()) {
    out += "Content-Type: " + response.contentType + "\r\n";
  }
  if (response.stream) {
    out += "Transfer-Encoding: chunked\r\n";
  } else {
    out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  }
  if (!keepAlive) out += "Connection: close\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  out += "\r\n";
  return out;
}

std::string encodeChunk(std::string_view data) {
  if (data.empty()) return "0\r\n\r\n";
  char size[20];
  auto [ptr, ec] = std::to_chars(size, size + sizeof size, data.size(), 16);
  (void)ec;
  std::string out(size, ptr);
  out += "\r\n";
  out += data;
  out += "\r\n";
  return out;
}

HttpResponse textResponse(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.contentType = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

}  // namespace attune::http::server
