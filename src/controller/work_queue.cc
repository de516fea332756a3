#include "controller/work_queue.h"

namespace attune::controller {

void WorkQueue::add(const std::string& key, Time due) {
  auto it = due_.find(key);
  if (it != due_.end()) {
    if (it->second <= due) return;
    order_.erase({it->second, key});
    it->second = due;
  } else {
    due_.emplace(key, due);
  }
  order_.emplace(due, key);
}

void WorkQueue::forget(std::string_view key) {
  auto it = due_.find(key);
  if (it == due_.end()) return;
  order_.erase({it->second, it->first});
  due_.erase(it);
}

std::vector<std::string> WorkQueue::popDue(Time now) {
  std::vector<std::string> keys;
  while (!order_.empty() && order_.begin()->first <= now) {
    keys.push_back(order_.begin()->second);
    due_.erase(keys.back());
    order_.erase(order_.begin());
  }
  return keys;
}

std::optional<Time> WorkQueue::nextDue() const {
  if (order_.empty()) return std::nullopt;
  return order_.begin()->first;
}

std::optional<Time> WorkQueue::dueOf(std::string_view key) const {
  auto it = due_.find(key);
  if (it == due_.end()) return std::nullopt;
  return it->second;
}

}  // namespace attune::controller
