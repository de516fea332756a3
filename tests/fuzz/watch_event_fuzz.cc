// Fuzzes the reading of a Kubernetes watch stream: the input is the body of a 2xx watch response.
//  - The line splitter (http::HttpTransport::stream, as a fake transport uses it; the curl client
//    runs the same splitter on each chunk) hands over exactly the body's lines: split at "\n",
//    without one trailing "\r", empty lines skipped, a last line without "\n" included.
//  - Each line goes to decodeWatchEvent for Pod (the pod informer's watch) and for Node, Event
//    and Lease (the other kinds `attune sim serve` streams): no crash or throw, errors have a
//    message, and a decoded event re-encodes (encodeWatchEventJson) to a line that decodes to an
//    equal event (its object, or its Status for ERROR), encoding again to the same text.
//  - kube::PodWatchStream reads the whole body: it ends, delivers only ADDED, MODIFIED and
//    DELETED events, and an error it ends with has a message.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <source_location>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/k8s/decode.h"
#include "api/k8s/encode_objects.h"
#include "fuzz_check.h"
#include "http/http_client.h"
#include "kube/pod_watch.h"

namespace {

using namespace attune;

using attune::fuzz::check;

// Answers every request with a 200 whose body is the fuzz input.
class BodyTransport final : public http::HttpTransport {
 public:
  explicit BodyTransport(std::string body) : body_(std::move(body)) {}
  Result<http::HttpResponse> send(const http::HttpRequest&) override {
    http::HttpResponse response;
    response.status = 200;
    response.body = body_;
    return response;
  }

 private:
  std::string body_;
};

template <typename T>
void decodeLine(std::string_view line) {
  auto event = api::decodeWatchEvent<T>(line);
  if (!event) {
    check(!event.error().message.empty());
    return;
  }
  const std::string json = api::encodeWatchEventJson(*event);
  check(json.find('\n') == std::string::npos);
  auto again = api::decodeWatchEvent<T>(json);
  check(again.has_value());
  check(again->type == event->type);
  if (event->type == api::WatchEventType::kError) {
    check(again->status == event->status);
  } else {
    check(again->object == event->object);
  }
  check(api::encodeWatchEventJson(*again) == json);
}

// The lines of `body` as the watch protocol defines them: split at "\n", one trailing "\r"
// removed, empty lines skipped, a last line without "\n" included.
std::vector<std::string> expectedLines(std::string_view body) {
  std::vector<std::string> lines;
  while (!body.empty()) {
    const std::size_t nl = body.find('\n');
    std::string_view line = body.substr(0, nl);
    body.remove_prefix(nl == std::string_view::npos ? body.size() : nl + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (!line.empty()) lines.emplace_back(line);
  }
  return lines;
}

void readWithPodWatchStream(const std::string& body) {
  kube::PodWatchStream stream(std::make_unique<BodyTransport>(body), http::HttpRequest{});
  for (;;) {
    auto drained = stream.drain(std::chrono::seconds(10));
    for (const auto& event : drained.events) {
      check(event.type == api::WatchEventType::kAdded ||
            event.type == api::WatchEventType::kModified ||
            event.type == api::WatchEventType::kDeleted);
    }
    if (drained.error) check(!drained.error->message.empty());
    if (drained.ended) break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);

  BodyTransport transport(body);
  std::vector<std::string> lines;
  auto response = transport.stream(
      http::HttpRequest{},
      [&](std::string_view line) {
        lines.emplace_back(line);
        return true;
      },
      std::stop_token());
  check(response.has_value() && response->body.empty());
  check(lines == expectedLines(body));
  for (const std::string& line : lines) {
    decodeLine<api::Pod>(line);
    decodeLine<api::Node>(line);
    decodeLine<api::Event>(line);
    decodeLine<api::Lease>(line);
  }

  readWithPodWatchStream(body);
  return 0;
}
