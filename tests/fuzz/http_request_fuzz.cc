// Fuzzes the HTTP/1.1 request parser that every listener (API front end of `attune sim serve`,
// the metrics and probe endpoints, the admission webhook) runs on bytes from the network. For any
// input, parsed as a connection would see it (requests one after another until one is
// incomplete or invalid):
//  - parsing never crashes, hangs or throws, and never consumes more than it was given;
//  - the limits hold: a complete request has at most maxHeaderCount headers and a body of at
//    most maxBodyBytes; an invalid one has a 4xx/5xx status and a reason;
//  - parsing the bytes in pieces (sizes taken from the input's first byte) gives exactly what
//    parsing them at once gives: the same outcome, status, consumed bytes and request.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "http/server_message.h"

namespace {

using namespace attune::http::server;

constexpr RequestLimits kLimits{.maxHeadBytes = 2048, .maxHeaderCount = 16, .maxBodyBytes = 4096};

using attune::fuzz::check;

bool sameRequest(const HttpRequest& a, const HttpRequest& b) {
  return a.method == b.method && a.target == b.target && a.path == b.path && a.query == b.query &&
         a.headers == b.headers && a.body == b.body && a.minorVersion == b.minorVersion;
}

// Feeds `bytes` in pieces of `step` bytes, as reads from a socket would arrive.
ParsedRequest parseInPieces(std::string_view bytes, std::size_t step) {
  RequestParser parser(kLimits);
  ParsedRequest last;
  for (std::size_t n = std::min(step, bytes.size());; n = std::min(n + step, bytes.size())) {
    last = parser.next(bytes.substr(0, n));
    if (last.outcome != ParseOutcome::kIncomplete || n == bytes.size()) return last;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t step = 1 + data[0] % 64;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  RequestParser parser(kLimits);
  for (int requests = 0; requests < 64; ++requests) {
    const ParsedRequest whole = parser.next(rest);
    const ParsedRequest pieces = parseInPieces(rest, step);
    check(whole.outcome == pieces.outcome);
    if (whole.outcome == ParseOutcome::kIncomplete) break;
    if (whole.outcome == ParseOutcome::kInvalid) {
      check(whole.errorStatus >= 400 && whole.errorStatus < 600 && !whole.error.empty());
      check(whole.errorStatus == pieces.errorStatus);
      check(reasonPhrase(whole.errorStatus) != "Unknown");
      break;
    }
    const HttpRequest& r = whole.request;
    check(whole.consumed > 0 && whole.consumed <= rest.size());
    check(pieces.consumed == whole.consumed && sameRequest(pieces.request, r));
    check(r.headers.size() <= kLimits.maxHeaderCount);
    check(r.body.size() <= kLimits.maxBodyBytes);
    check(!r.method.empty() && !r.target.empty() && r.target.front() == '/');
    check(r.minorVersion == 0 || r.minorVersion == 1);
    (void)r.keepAlive();
    rest.remove_prefix(whole.consumed);
  }
  return 0;
}
