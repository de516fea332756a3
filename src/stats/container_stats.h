// Streaming usage statistics of one container: CPU (PSI-adjusted) and memory series, OOM
// kills, sample counts — compact enough for < 4 KiB per container at 7 days of 1-minute data
// (about 3.7 KiB with realistic usage; see bench/stats).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "core/units.h"
#include "stats/config.h"
#include "stats/series.h"
#include "stats/wire.h"

namespace attune::stats {

// One observation of a container.
struct Sample {
  Time time;
  double cpuCores = 0;  // usage rate, cores
  // Rate of CPU waiting time (PSI "some"); when present the CPU series records
  // cpuCores * (1 + psiCpuWaitingRate).
  std::optional<double> psiCpuWaitingRate;
  double memoryBytes = 0;  // working set
};

enum class SampleVerdict {
  kAccepted,
  kInvalid,  // NaN, infinite or negative value, or a time before 1970 or after 2106
  kTooOld,   // older than the longest history window behind the newest sample (whole days)
};

// Holds a pointer to its config, which must outlive it. Not thread-safe.
class ContainerStats {
 public:
  explicit ContainerStats(const StatsConfig& config);

  // Records a sample (at any resolution, in any order); rejected samples are only counted.
  SampleVerdict add(const Sample& s);
  // Records an OOM kill at `t` with the memory in use then; false (nothing recorded) if the
  // time or amount is invalid.
  bool addOomKill(Time t, Bytes memory);

  const Series& cpu() const { return cpu_; }
  const Series& memory() const { return memory_; }

  // The largest memory at an OOM kill within memory's history window before now (valid for any
  // now not before the latest OOM kill; older, smaller kills are forgotten). nullopt if none.
  std::optional<Bytes> maxOomMemory(Time now) const;
  std::uint64_t oomKills() const { return oomKills_; }

  // Accepted samples ever, and the earliest and latest accepted sample times (to the second).
  std::uint64_t sampleCount() const { return accepted_; }
  std::optional<Time> firstSampleTime() const;
  std::optional<Time> lastSampleTime() const;
  std::uint64_t rejectedInvalid() const { return invalid_; }
  std::uint64_t rejectedTooOld() const { return tooOld_; }

  // Bytes this container's statistics occupy: the object plus the heap it owns (vector
  // capacities; allocator headers are not included).
  std::size_t bytesUsed() const;

  // A self-contained, versioned checkpoint; restore() of it answers every query identically.
  std::vector<std::uint8_t> checkpoint() const;
  // Fails (kInvalidArgument) on a truncated or corrupt blob or one written with another config.
  static Result<ContainerStats> restore(std::span<const std::uint8_t> blob,
                                        const StatsConfig& config);

  // The body of a checkpoint without its header (for ContainerStatsStore).
  void encode(Writer& w) const;
  void decode(Reader& r);

 private:
  struct OomKill {
    Seconds t;
    std::int64_t bytes;
  };

  Series cpu_;
  Series memory_;
  std::uint64_t accepted_ = 0;
  std::uint64_t invalid_ = 0;
  std::uint64_t tooOld_ = 0;
  std::uint64_t oomKills_ = 0;
  Seconds first_ = 0;
  Seconds last_ = 0;
  // OOM kills by increasing time with strictly decreasing memory (the sliding-window maxima).
  std::vector<OomKill> ooms_;
};

// Checkpoint header: magic, format version and the config the data was summarised with.
void writeHeader(Writer& w, std::uint8_t kind, const StatsConfig& config);
// Fails `r` unless the header matches (kind, version, config).
void checkHeader(Reader& r, std::uint8_t kind, const StatsConfig& config);

}  // namespace attune::stats
