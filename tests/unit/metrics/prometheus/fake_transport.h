// An HttpTransport that records requests and answers from a handler, for unit tests.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "http/http_client.h"

namespace attune::metrics::testing {

using http::HttpHeader;
using http::HttpRequest;
using http::HttpResponse;
using http::HttpTransport;

class FakeTransport final : public HttpTransport {
 public:
  using Handler = std::function<Result<HttpResponse>(const HttpRequest&)>;

  explicit FakeTransport(Handler handler) : handler_(std::move(handler)) {}

  Result<HttpResponse> send(const HttpRequest& request) override {
    requests.push_back(request);
    return handler_(request);
  }

  std::vector<HttpRequest> requests;

 private:
  Handler handler_;
};

inline HttpResponse jsonResponse(long status, std::string body,
                                 std::vector<HttpHeader> headers = {}) {
  return HttpResponse{status, std::move(body), std::move(headers)};
}

// Decodes an application/x-www-form-urlencoded body (the inverse of formEncode).
inline std::map<std::string, std::string> formFields(const std::string& body) {
  std::map<std::string, std::string> out;
  const auto decode = [](std::string_view s) {
    std::string text;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '+') {
        text += ' ';
      } else if (s[i] == '%' && i + 2 < s.size()) {
        text += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
        i += 2;
      } else {
        text += s[i];
      }
    }
    return text;
  };
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('&', start);
    if (end == std::string::npos) end = body.size();
    const std::string_view pair(body.data() + start, end - start);
    const size_t eq = pair.find('=');
    if (eq != std::string_view::npos) out[decode(pair.substr(0, eq))] = decode(pair.substr(eq + 1));
    start = end + 1;
  }
  return out;
}

}  // namespace attune::metrics::testing
