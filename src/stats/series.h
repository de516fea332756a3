// Streaming statistics of one resource (CPU cores or memory bytes) of one container.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/time.h"
#include "stats/config.h"
#include "stats/day_histograms.h"
#include "stats/hourly_ring.h"
#include "stats/log_scale.h"
#include "stats/recent_window.h"
#include "stats/time_index.h"
#include "stats/wire.h"

namespace attune::stats {

// Every query takes the time `now` it is asked at and returns nullopt when no sample falls in
// its window. Queries are meant for now >= the latest sample: for an earlier now, the hour and
// the day holding now count whole, and data expired behind the latest sample is gone. Values are in
// the resource's unit (cores or bytes). Holds a pointer to its config, which must outlive it. Not
// thread-safe.
class Series {
 public:
  explicit Series(const SeriesConfig& config);

  // Adds a value (finite, >= 0; the caller validates) observed at `t`.
  void add(Seconds t, double value) { add(t, hourIndex(t), dayIndex(t), value); }
  // The same with `hour` == hourIndex(t) and `day` == dayIndex(t) already computed (by a caller
  // feeding several series from one sample).
  void add(Seconds t, std::uint32_t hour, std::uint32_t day, double value) {
    const LogScale::Codes codes = scale_.encode(value);
    recent_.add(t, static_cast<float>(value), recentWindow_);
    hours_.add(hour, codes.fine, hourOfDayQuantile_);
    days_.add(day, codes.bucket, historyDays_);
  }

  // Steady state: the q-quantile (default P75) of the exact samples in (now - recentWindow,
  // now], interpolated like Prometheus' quantile_over_time. Float-rounded (<= 6e-8 relative).
  std::optional<double> recentQuantile(Time now, double q = 0.75) const;

  // Peak: the maximum of the samples whose hour of the week (UTC) is now's, within the last
  // week — now's hour so far and the same hour 168 hours earlier. Rounded up by <= 0.05%.
  std::optional<double> peak(Time now) const;

  // The maximum over the hours from 168 hours before now's hour up to now's hour (7 to 7 days
  // + 1 hour of data). Rounded up by <= 0.05%.
  std::optional<double> weekMax(Time now) const;

  // The long-horizon q-quantile (q in [0, 1]) over the history window (whole UTC days, see
  // DayHistograms): the sketch value for the sample of lower nearest rank floor(q * (n - 1)),
  // within 0.99% (kSketchRelativeError) of it; values below minValue read as 0.
  std::optional<double> quantile(Time now, double q) const;
  // Samples in the history window.
  std::uint64_t count(Time now) const;

  // The hour-of-day percentile of hour `hourOfDay` (0-23, UTC): the largest, over the
  // occurrences of that hour in the last 168 hours, of each hour's own hourOfDayQuantile
  // (exact per hour, rounded up by <= 0.05%). The pooled quantile over those hours lies between
  // the smallest and the largest per-hour quantile, so this is a conservative upper bound.
  std::optional<double> hourOfDayQuantile(Time now, int hourOfDay) const;
  // The largest hourOfDayQuantile over the 24 hours of the day.
  std::optional<double> maxHourOfDayQuantile(Time now) const;

  // Bytes on the heap owned by this series (sizeof(Series) is the rest).
  std::size_t heapBytes() const;
  void encode(Writer& w) const;
  void decode(Reader& r);
  const SeriesConfig& config() const { return *config_; }
  int historyDays() const { return historyDays_; }

 private:
  std::optional<double> fineValue(FineCode code) const;

  const SeriesConfig* config_;
  Seconds recentWindow_;      // config_->recentWindow in seconds
  int historyDays_;           // historyDays(*config_)
  double hourOfDayQuantile_;  // config_->hourOfDayQuantile
  LogScale scale_;
  RecentWindow recent_;
  HourlyRing hours_;
  DayHistograms days_;
};

}  // namespace attune::stats
