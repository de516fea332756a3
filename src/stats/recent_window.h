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
  void add(Seconds t, float value, Seconds window);

  // The q-quantile (q in [0, 1]) of the values with time in (now - window, now], interpolated
  // between closest ranks as Prometheus' quantile_over_time does; nullopt if there are none.
  std::optional<double> quantile(Seconds now, Seconds window, double q) const;

  std::size_t heapBytes() const { return entries_.capacity() * sizeof(Entry); }
  // Writes the samples inside the window behind the newest.
  void encode(Writer& w, Seconds window) const;
  // Replaces the content; corrupt input fails `r`.
  void decode(Reader& r);

 private:
  struct Entry {
    Seconds t;
    float value;
  };
  // Drops entries older than the window behind the newest.
  void trim(Seconds window);

  // Time-ordered; may hold expired entries until the next trim (done when the vector is full,
  // so that trimming costs O(1) amortised per sample).
  std::vector<Entry> entries_;
};

}  // namespace attune::stats
