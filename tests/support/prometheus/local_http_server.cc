#include "support/prometheus/local_http_server.h"

namespace attune::testing {

LocalHttpServer::LocalHttpServer(Handler handler)
    : handler_(std::move(handler)),
      server_([this](LoopbackConnection& connection) { return answer(connection); }) {}

LocalHttpServer::~LocalHttpServer() = default;

std::vector<std::string> LocalHttpServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

LoopbackServer::After LocalHttpServer::answer(LoopbackConnection& connection) {
  const std::string request = connection.receiveHttpRequest();
  if (request.empty()) return LoopbackServer::After::kClose;
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
  }
  const std::optional<Reply> reply = handler_(request);
  if (!reply) return LoopbackServer::After::kHoldOpen;
  std::string out = "HTTP/1.1 " + std::to_string(reply->status) + " Status\r\n" +
                    "Content-Type: application/json\r\nConnection: close\r\n" +
                    "Content-Length: " + std::to_string(reply->body.size()) + "\r\n";
  for (const auto& [name, value] : reply->headers) out += name + ": " + value + "\r\n";
  out += "\r\n" + reply->body;
  connection.send(out);
  return LoopbackServer::After::kClose;
}

}  // namespace attune::testing
