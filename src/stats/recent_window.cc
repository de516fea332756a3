#include "stats/recent_window.h"

#include <algorithm>
#include <cmath>

namespace attune::stats {

void RecentWindow::trim(Seconds window) {
  if (entries_.empty()) return;
  const Seconds newest = entries_.back().t;
  auto firstLive = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return e.t + std::uint64_t{window} > newest;
  });
  entries_.erase(entries_.begin(), firstLive);
}

void RecentWindow::add(Seconds t, float value, Seconds window) {
  if (!entries_.empty() && t + std::uint64_t{window} <= entries_.back().t) return;
  if (entries_.size() == entries_.capacity()) trim(window);
  if (entries_.empty() || t >= entries_.back().t) {
    entries_.push_back({t, value});
    return;
  }
  auto pos = std::upper_bound(entries_.begin(), entries_.end(), t,
                              [](Seconds s, const Entry& e) { return s < e.t; });
  entries_.insert(pos, {t, value});
}

std::optional<double> RecentWindow::quantile(Seconds now, Seconds window, double q) const {
  std::vector<double> values;
  values.reserve(entries_.size());
  for (const Entry& e : entries_) {
    if (e.t <= now && e.t + std::uint64_t{window} > now) values.push_back(e.value);
  }
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const double rank = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = static_cast<std::size_t>(std::ceil(rank));
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

void RecentWindow::encode(Writer& w, Seconds window) const {
  const Seconds newest = entries_.empty() ? 0 : entries_.back().t;
  auto live = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.t + std::uint64_t{window} > newest; });
  w.varint(static_cast<std::size_t>(entries_.end() - live));
  for (auto it = live; it != entries_.end(); ++it) {
    w.u32(it->t);
    w.f32(it->value);
  }
}

void RecentWindow::decode(Reader& r) {
  const std::uint64_t n = r.varint();
  entries_.clear();
  if (n > r.remaining() / 8) r.corrupt("has a recent-window count beyond its size");
  if (!r.ok()) return;
  entries_.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    const Seconds t = r.u32();
    const float v = r.f32();
    if (!entries_.empty() && t < entries_.back().t) r.corrupt("has recent samples out of order");
    if (!(v >= 0) || !std::isfinite(v)) r.corrupt("has an invalid recent sample");
    if (!r.ok()) return;
    entries_.push_back({t, v});
  }
}

}  // namespace attune::stats
