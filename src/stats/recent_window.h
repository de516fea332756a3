// The exact samples of one resource over a short recent window (the steady-state P75 window).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "stats/time_index.h"
#include "stats/wire.h"

namespace attune::stats {

// Keeps (second, value) pairs, in time order, of the last `window` seconds before the newest
// sample. Values are stored as float (relative rounding <= 6e-8). Not thread-safe.
class RecentWindow {
 public:
  // Adds a sample; out-of-order samples are inserted in place, samples already outside the
  // window behind the newest are dropped.
  void add(Seconds t, float value, Seconds window) {
    // Fast path: an in-order sample, with room in the ring or taking the slot of the oldest
    // entry once that has expired behind `t` (the same slot: no shifting, no extra cache line).
    if (size_ != 0 && t >= back().t) {
      if (size_ < ring_.size()) {
        ring_[wrap(head_ + size_)] = {t, value};
        ++size_;
        return;
      }
      Entry& oldest = ring_[head_];
      if (oldest.t + std::uint64_t{window} <= t) {
        oldest = {t, value};
        head_ = wrap(head_ + 1);
        return;
      }
    }
    addSlow(t, value, window);
  }

  // The q-quantile (q in [0, 1]) of the values with time in (now - window, now], interpolated
  // between closest ranks as Prometheus' quantile_over_time does; nullopt if there are none.
  // Samples already outside the window behind the newest never count (also for an earlier now).
  std::optional<double> quantile(Seconds now, Seconds window, double q) const;

  std::size_t heapBytes() const { return ring_.capacity() * sizeof(Entry); }
  // Writes the samples inside the window behind the newest.
  void encode(Writer& w, Seconds window) const;
  // Replaces the content; corrupt input fails `r`.
  void decode(Reader& r);

 private:
  struct Entry {
    Seconds t;
    float value;
  };
  // Ring index of head_ + offset, for offset < 2 * ring_.size().
  std::uint32_t wrap(std::uint32_t i) const {
    const auto n = static_cast<std::uint32_t>(ring_.size());
    return i >= n ? i - n : i;
  }
  // The i-th entry in time order (i < size_).
  Entry& at(std::uint32_t i) { return ring_[wrap(head_ + i)]; }
  const Entry& at(std::uint32_t i) const { return ring_[wrap(head_ + i)]; }
  const Entry& back() const { return at(size_ - 1); }
  void addSlow(Seconds t, float value, Seconds window);
  // Drops entries older than the window behind the newest.
  void trim(Seconds window);
  // Doubles the ring (at least 4 entries), moving the entries to its start.
  void grow();

  // A ring of ring_.size() slots (== its capacity) holding size_ entries from head_, in time
  // order; may hold expired entries (ignored by every reader) until they are overwritten or
  // trimmed (only when the ring is full), so that nothing is shifted for in-order samples.
  std::vector<Entry> ring_;
  std::uint32_t head_ = 0;
  std::uint32_t size_ = 0;
};

}  // namespace attune::stats
