#include "sim/serve/request_counter.h"

namespace attune::sim::serve {

std::string_view requestVerb(std::string_view method, bool collection, bool watching) {
  if (method == "GET") return watching ? "watch" : collection ? "list" : "get";
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return collection ? "deletecollection" : "delete";
  return method;
}

void RequestCounter::count(std::string_view verb, std::string_view resource) {
  std::lock_guard lock(mutex_);
  ++total_;
  auto key = std::make_pair(std::string(verb), std::string(resource));
  auto it = counts_.find(key);
  if (it == counts_.end()) {
    counts_.emplace(std::move(key), 1);
  } else {
    ++it->second;
  }
}

std::uint64_t RequestCounter::total() const {
  std::lock_guard lock(mutex_);
  return total_;
}

std::string RequestCounter::metricsText() const {
  std::lock_guard lock(mutex_);
  std::string out =
      "# HELP attune_sim_api_requests_total API requests answered, by verb and resource.\n"
      "# TYPE attune_sim_api_requests_total counter\n";
  for (const auto& [key, n] : counts_) {
    out += "attune_sim_api_requests_total{verb=\"" + key.first + "\",resource=\"" + key.second +
           "\"} " + std::to_string(n) + "\n";
  }
  out +=
      "# HELP attune_sim_api_requests_all_total API requests answered, every verb and "
      "resource.\n# TYPE attune_sim_api_requests_all_total counter\n"
      "attune_sim_api_requests_all_total " +
      std::to_string(total_) + "\n";
  return out;
}

}  // namespace attune::sim::serve
