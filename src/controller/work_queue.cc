#include "controller/work_queue.h"

namespace attune::controller {

void WorkQueue::add(const std::string& key, Time due) {
  auto it = keys_.find(key);
  if (it == keys_.end()) {
    it = keys_.emplace(key, std::nullopt).first;
  } else if (it->second) {
    if (*it->second <= due) return;
    order_.erase({*it->second, it});
  }
  it->second = due;
  order_.emplace(due, it);
}

void WorkQueue::forget(std::string_view key) {
  auto it = keys_.find(key);
  if (it == keys_.end()) return;
  if (it->second) order_.erase({*it->second, it});
  keys_.erase(it);
}

std::vector<std::string> WorkQueue::popDue(Time now) {
  std::vector<std::string> keys;
  while (!order_.empty() && order_.begin()->first <= now) {
    const Keys::iterator it = order_.begin()->second;
    keys.push_back(it->first);
    it->second.reset();
    order_.erase(order_.begin());
  }
  return keys;
}

std::optional<Time> WorkQueue::nextDue() const {
  if (order_.empty()) return std::nullopt;
  return order_.begin()->first;
}

std::optional<Time> WorkQueue::dueOf(std::string_view key) const {
  auto it = keys_.find(key);
  if (it == keys_.end()) return std::nullopt;
  return it->second;
}

}  // namespace attune::controller
