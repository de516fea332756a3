// Splits a raw HTTP/1.1 request (as LocalHttpServer records it) into its parts, for asserting on
// what a client sent.
#pragma once

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

namespace attune::testing {

struct RawRequest {
  std::string method;
  std::string target;  // path and query, as sent
  std::string head;    // header lines
  std::string body;

  std::string path() const { return target.substr(0, target.find('?')); }
  std::string query() const {
    const auto q = target.find('?');
    return q == std::string::npos ? "" : target.substr(q + 1);
  }
  // The value of header `name` (case-insensitive), or nullopt.
  std::optional<std::string> header(std::string_view name) const {
    size_t start = 0;
    while (start < head.size()) {
      size_t end = head.find("\r\n", start);
      if (end == std::string::npos) end = head.size();
      const std::string_view line(head.data() + start, end - start);
      const auto colon = line.find(':');
      if (colon != std::string_view::npos && colon == name.size() &&
          std::ranges::equal(line.substr(0, colon), name, [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) ==
                   std::tolower(static_cast<unsigned char>(b));
          })) {
        std::string value(line.substr(colon + 1));
        value.erase(0, value.find_first_not_of(' '));
        return value;
      }
      start = end + 2;
    }
    return std::nullopt;
  }
};

inline RawRequest parseRawRequest(const std::string& raw) {
  RawRequest r;
  const auto lineEnd = raw.find("\r\n");
  const auto headEnd = raw.find("\r\n\r\n");
  const std::string first = raw.substr(0, lineEnd);
  const auto sp1 = first.find(' ');
  const auto sp2 = first.find(' ', sp1 + 1);
  r.method = first.substr(0, sp1);
  r.target = first.substr(sp1 + 1, sp2 - sp1 - 1);
  if (headEnd != std::string::npos) {
    r.head = raw.substr(lineEnd + 2, headEnd - lineEnd - 2);
    r.body = raw.substr(headEnd + 4);
  }
  return r;
}

}  // namespace attune::testing
