#include "sim/serve/sim_host.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <string>
#include <string_view>

namespace attune::sim::serve {
namespace {

// The longest single sleep of the ticker, so stop() is noticed quickly.
constexpr Duration kMaxNap = std::chrono::milliseconds(50);
// Wall time between the heartbeats that wake waitForChange().
constexpr Duration kHeartbeat = std::chrono::seconds(1);

}  // namespace

SimHost::SimHost(std::unique_ptr<Simulation> simulation, Clock& wall, Duration tickInterval)
    : simulation_(std::move(simulation)), wall_(wall), tickInterval_(tickInterval) {}

SimHost::~SimHost() { stop(); }

void SimHost::start() {
  if (ticker_.joinable()) return;
  ticker_ = std::thread([this] { run(); });
}

void SimHost::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    ++generation_;
    wakeAllLocked();
  }
  if (ticker_.joinable()) ticker_.join();
}

void SimHost::notifyLocked() {
  ++generation_;
  changed_.notify_all();
  for (Topic* topic : raised_) {
    topic->raised = false;
    topic->changed.notify_all();
  }
  raised_.clear();
}

void SimHost::wakeAllLocked() {
  changed_.notify_all();
  for (auto& [name, topic] : topics_) topic->changed.notify_all();
}

SimHost::Topic& SimHost::topicLocked(std::string_view name) {
  auto it = topics_.find(name);
  if (it == topics_.end()) it = topics_.emplace(std::string(name), std::make_unique<Topic>()).first;
  return *it->second;
}

void SimHost::raiseLocked(std::string_view topic) {
  Topic& t = topicLocked(topic);
  ++t.generation;
  if (!t.raised) {
    t.raised = true;
    raised_.push_back(&t);
  }
}

std::uint64_t SimHost::waitForChange(std::string_view topic, std::uint64_t seen) {
  std::unique_lock lock(mutex_);
  Topic& t = topicLocked(topic);
  const std::uint64_t beats = heartbeats_;
  t.changed.wait(lock, [&] { return t.generation != seen || stopping_ || heartbeats_ != beats; });
  return t.generation;
}

std::uint64_t SimHost::generation(std::string_view topic) {
  std::lock_guard lock(mutex_);
  return topicLocked(topic).generation;
}

std::uint64_t SimHost::waitForChange(std::uint64_t seen) {
  std::unique_lock lock(mutex_);
  const std::uint64_t beats = heartbeats_;
  changed_.wait(lock, [&] { return generation_ != seen || stopping_ || heartbeats_ != beats; });
  return generation_;
}

std::uint64_t SimHost::generation() {
  std::lock_guard lock(mutex_);
  return generation_;
}

bool SimHost::ready() {
  std::lock_guard lock(mutex_);
  return ticked_ && !stopping_ && !failure_;
}

bool SimHost::stopped() {
  std::lock_guard lock(mutex_);
  return stopping_;
}

std::optional<Error> SimHost::failure() {
  std::lock_guard lock(mutex_);
  return failure_;
}

void SimHost::run() {
  Time next = wall_.now();
  Time beat = next + kHeartbeat;
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_ || failure_) return;
    }
    const Time now = wall_.now();
    if (now >= beat) {
      {
        std::lock_guard lock(mutex_);
        ++heartbeats_;
        wakeAllLocked();
      }
      beat = now + kHeartbeat;
    }
    if (now < next) {
      wall_.sleepFor(std::min<Duration>(next - now, kMaxNap));
      continue;
    }
    tick();
    next += tickInterval_;
    if (next < now) next = now + tickInterval_;  // fell behind: do not catch up
  }
}

void SimHost::tick() {
  TickStats tick;
  {
    std::lock_guard lock(mutex_);
    tick.lastStart = wall_.now();
    if (auto stepped = simulation_->step(); !stepped) failure_ = stepped.error();
    ticked_ = true;
    notifyLocked();
    tick.last = wall_.now() - tick.lastStart;
  }
  std::lock_guard stats(statsMutex_);
  ++stats_.ticks;
  stats_.held += tick.last;
  stats_.lastStart = tick.lastStart;
  stats_.last = tick.last;
}

std::string SimHost::tickMetricsText() {
  TickStats s;
  {
    std::lock_guard stats(statsMutex_);
    s = stats_;
  }
  const auto seconds = [](Duration d) {
    char buffer[32];
    const double v = std::chrono::duration<double>(d).count();
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, ec == std::errc() ? end : buffer);
  };
  const auto metric = [](std::string_view name, std::string_view type, std::string_view help,
                         const std::string& value) {
    std::string out = "# HELP ";
    out.append(name).append(" ").append(help).append("\n# TYPE ").append(name).append(" ");
    out.append(type).append("\n").append(name).append(" ").append(value).append("\n");
    return out;
  };
  return metric("attune_sim_ticks_total", "counter", "Simulation ticks run.",
                std::to_string(s.ticks)) +
         metric("attune_sim_tick_seconds_total", "counter",
                "Wall time the ticks held the simulation's lock.", seconds(s.held)) +
         metric("attune_sim_last_tick_start_timestamp_seconds", "gauge",
                "When the last tick started.", seconds(s.lastStart.time_since_epoch())) +
         metric("attune_sim_last_tick_seconds", "gauge",
                "Wall time the last tick held the simulation's lock.", seconds(s.last));
}

}  // namespace attune::sim::serve
