// HTTP/1.1 messages for the simulator's REST front end: parsing requests from a byte buffer and
// formatting response heads and chunks. Pure functions, no I/O; thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attune::http::server {

using HeaderMap = std::map<std::string, std::string, std::less<>>;

struct HttpRequest {
  std::string method;    // as sent: GET, POST, PUT, PATCH, DELETE...
  std::string target;    // the request target as sent ("/api/v1/pods?watch=1")
  std::string path;      // the target's path, percent-decoded
  HeaderMap query;       // decoded query parameters; a repeated name keeps its last value
  HeaderMap headers;     // names lower-cased; repeated headers joined with ", "
  std::string body;      // de-chunked when sent with Transfer-Encoding: chunked
  int minorVersion = 1;  // HTTP/1.<minorVersion>
  // Set by HttpServer: from the request's first byte to its last, as read from the connection
  // (a body that arrives slowly counts, as it does in a Go handler's latency).
  std::chrono::nanoseconds receiveTime{0};

  // The header's value, or "" when absent. `name` must be lower case.
  std::string_view header(std::string_view name) const;
  // The query parameter's value, or "" when absent.
  std::string_view param(std::string_view name) const;
  bool hasParam(std::string_view name) const { return query.contains(name); }
  // Whether the connection stays open after the response (HTTP/1.1 unless "Connection: close";
  // HTTP/1.0 only with "Connection: keep-alive").
  bool keepAlive() const;
};

enum class ParseOutcome { kComplete, kIncomplete, kInvalid };

// What a request may cost the server before it is refused.
struct RequestLimits {
  // The request line and headers (with any empty lines before them and, for a chunked body, its
  // trailer fields): 431 beyond.
  std::size_t maxHeadBytes = 64 * 1024;
  std::size_t maxHeaderCount = 100;  // 431 beyond
  // The body after de-chunking: 413 beyond. A chunk-size line longer than 1 KiB is a 400.
  std::size_t maxBodyBytes = 16 * 1024 * 1024;
};

struct ParsedRequest {
  ParseOutcome outcome = ParseOutcome::kIncomplete;
  std::size_t consumed = 0;  // bytes of the buffer the request used (kComplete only)
  HttpRequest request;       // kComplete only
  // 400 (malformed), 413 (body too large), 431 (head too large or too many headers) or 501
  // (unknown transfer coding); kInvalid only.
  int errorStatus = 0;
  std::string error;  // kInvalid: why
};

// Parses requests incrementally from a connection's buffer. Each call to next() is given the
// buffer the previous call saw with any newly received bytes appended; the parser resumes where
// it stopped, so a request received in many small reads costs time linear in its size. After a
// kComplete or kInvalid result the parser starts over: the next call's buffer begins with the
// following request (the caller removes the `consumed` bytes). Not thread-safe.
class RequestParser {
 public:
  explicit RequestParser(RequestLimits limits = {}) : limits_(limits) {}

  // kIncomplete when more bytes are needed (the buffer is a prefix of a valid request); kInvalid
  // when it cannot be a valid request: a malformed request line or header, a non-numeric
  // Content-Length, a malformed chunk, or a limit exceeded. Requests without a body (no
  // Content-Length, not chunked) have an empty body.
  ParsedRequest next(std::string_view buffer);
  // Whether the current request's head has been read (its body may still be incomplete).
  bool headComplete() const { return headEnd_ != 0; }
  // Forgets the current request; the next call starts a new one.
  void reset();

 private:
  ParsedRequest parseHead(std::string_view buffer);
  ParsedRequest parseBody(std::string_view buffer);
  ParsedRequest readChunks(std::string_view buffer);
  ParsedRequest complete(std::size_t end);

  RequestLimits limits_;
  std::size_t start_ = 0;    // past the empty lines before the request line
  std::size_t scanned_ = 0;  // bytes already searched for the end of the head
  std::size_t headEnd_ = 0;  // past the head's blank line; 0 while the head is incomplete
  HttpRequest request_;
  bool chunked_ = false;
  std::size_t length_ = 0;    // Content-Length
  std::size_t chunkPos_ = 0;  // where the next chunk-size (or trailer) line starts
  bool inTrailer_ = false;    // the last chunk has been read
  std::size_t trailerBytes_ = 0;
};

// Parses the first request in `buffer` in one call (RequestParser with default limits except
// `maxBodyBytes`).
ParsedRequest parseRequest(std::string_view buffer, std::size_t maxBodyBytes);

// Decodes %XX escapes (and '+' as a space when `plusIsSpace`); nullopt on a malformed escape.
std::optional<std::string> percentDecode(std::string_view text, bool plusIsSpace);

// "name=value&..." into decoded pairs; a malformed escape keeps the raw text.
HeaderMap parseQuery(std::string_view query);

// The reason phrase of a status code ("OK", "Not Found"); "Unknown" for codes not listed.
std::string_view reasonPhrase(int status);

// The sink of a streamed (chunked) response body.
class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  // Sends `data` as one chunk (nothing for empty data). False when the peer is gone or the
  // server is stopping; the stream should then return.
  virtual bool write(std::string_view data) = 0;
  // True once the server is stopping.
  virtual bool closing() const = 0;
};

struct HttpResponse {
  int status = 200;
  std::string contentType = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  std::string body;
  // When set, the body is streamed with Transfer-Encoding: chunked: the server sends the head,
  // calls stream (on the connection's thread) and then the last chunk. `body` is ignored.
  std::function<void(ChunkSink&)> stream;
  // Close the connection after this response even when the client would keep it.
  bool close = false;
  // Close the connection without sending anything (a simulated connection reset); every other
  // field is ignored.
  bool abort = false;
};

// A response of `status` with `body` as text/plain; charset=utf-8.
HttpResponse textResponse(int status, std::string body);

// The status line and headers, ending with the blank line: Content-Type (when the response has
// a body or a stream), Content-Length (`body.size()`) or Transfer-Encoding: chunked (when
// `stream` is set), Connection: close when !keepAlive, then the extra headers.
std::string formatResponseHead(const HttpResponse& response, bool keepAlive);

// One chunk of a chunked body: hex size, CRLF, data, CRLF. Empty data gives the last chunk
// "0\r\n\r\n".
std::string encodeChunk(std::string_view data);

}  // namespace attune::http::server
