#include "stats/recent_window.h"

#include <algorithm>
#include <cmath>

namespace attune::stats {

void RecentWindow::trim(Seconds window) {
  if (size_ == 0) return;
  const Seconds newest = back().t;
  while (size_ > 0 && at(0).t + std::uint64_t{window} <= newest) {
    head_ = wrap(head_ + 1);
    --size_;
  }
  if (size_ == 0) head_ = 0;
}

void RecentWindow::grow() {
  std::vector<Entry> grown(std::max<std::size_t>(4, 2 * ring_.size()));
  for (std::uint32_t i = 0; i < size_; ++i) grown[i] = at(i);
  ring_.swap(grown);
  head_ = 0;
}

void RecentWindow::addSlow(Seconds t, float value, Seconds window) {
  if (size_ != 0 && t + std::uint64_t{window} <= back().t) return;
  if (size_ == ring_.size()) {
    trim(window);
    if (size_ == ring_.size()) grow();
  }
  if (size_ == 0 || t >= back().t) {
    ring_[wrap(head_ + size_)] = {t, value};
    ++size_;
    return;
  }
  // Out of order: insert after the last entry with time <= t, shifting the later ones.
  std::uint32_t pos = size_;
  while (pos > 0 && at(pos - 1).t > t) --pos;
  for (std::uint32_t i = size_; i > pos; --i) at(i) = at(i - 1);
  at(pos) = {t, value};
  ++size_;
}

std::optional<double> RecentWindow::quantile(Seconds now, Seconds window, double q) const {
  std::vector<double> values;
  values.reserve(size_);
  const Seconds newest = size_ == 0 ? 0 : back().t;
  for (std::uint32_t i = 0; i < size_; ++i) {
    const Entry& e = at(i);
    const std::uint64_t end = std::uint64_t{e.t} + window;  // the entry expires at end
    if (e.t <= now && end > now && end > newest) values.push_back(e.value);
  }
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const double rank = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = static_cast<std::size_t>(std::ceil(rank));
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

void RecentWindow::encode(Writer& w, Seconds window) const {
  const Seconds newest = size_ == 0 ? 0 : back().t;
  std::uint32_t live = 0;
  while (live < size_ && at(live).t + std::uint64_t{window} <= newest) ++live;
  w.varint(size_ - live);
  for (std::uint32_t i = live; i < size_; ++i) {
    w.u32(at(i).t);
    w.f32(at(i).value);
  }
}

void RecentWindow::decode(Reader& r) {
  const std::uint64_t n = r.varint();
  ring_.clear();
  head_ = 0;
  size_ = 0;
  if (n > r.remaining() / 8) r.corrupt("has a recent-window count beyond its size");
  if (!r.ok()) return;
  std::vector<Entry>(n).swap(ring_);
  for (std::uint64_t i = 0; i < n; ++i) {
    const Seconds t = r.u32();
    const float v = r.f32();
    if (size_ > 0 && t < back().t) r.corrupt("has recent samples out of order");
    if (!(v >= 0) || !std::isfinite(v)) r.corrupt("has an invalid recent sample");
    if (!r.ok()) {
      std::vector<Entry>().swap(ring_);
      size_ = 0;
      return;
    }
    ring_[size_++] = {t, v};
  }
}

}  // namespace attune::stats
