#include "stats/container_stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace attune::stats {
namespace {

constexpr std::uint8_t kMagic[3] = {'A', 'T', 'S'};
constexpr std::uint16_t kVersion = 2;  // 2: packed day histograms
constexpr std::uint8_t kContainerKind = 'C';

bool validValue(double v) { return std::isfinite(v) && v >= 0; }

Seconds historySeconds(const SeriesConfig& c) {
  return static_cast<Seconds>(historyDays(c)) * kSecondsPerDay;
}

void writeSeriesConfig(Writer& w, const SeriesConfig& c) {
  w.f64(c.minValue);
  w.u64(static_cast<std::uint64_t>(c.recentWindow.count()));
  w.u64(static_cast<std::uint64_t>(c.history.count()));
  w.f64(c.hourOfDayQuantile);
}

SeriesConfig readSeriesConfig(Reader& r) {
  SeriesConfig c;
  c.minValue = r.f64();
  c.recentWindow = Duration(static_cast<Duration::rep>(r.u64()));
  c.history = Duration(static_cast<Duration::rep>(r.u64()));
  c.hourOfDayQuantile = r.f64();
  return c;
}

}  // namespace

void writeHeader(Writer& w, std::uint8_t kind, const StatsConfig& config) {
  for (std::uint8_t b : kMagic) w.u8(b);
  w.u8(kind);
  w.u16(kVersion);
  writeSeriesConfig(w, config.cpu);
  writeSeriesConfig(w, config.memory);
}

void checkHeader(Reader& r, std::uint8_t kind, const StatsConfig& config) {
  for (std::uint8_t b : kMagic) {
    if (r.u8() != b) r.corrupt("has a bad magic number");
  }
  if (r.u8() != kind) r.corrupt("is of another kind");
  if (r.u16() != kVersion) r.corrupt("has an unsupported version");
  StatsConfig written;
  written.cpu = readSeriesConfig(r);
  written.memory = readSeriesConfig(r);
  if (r.ok() && !(written == config)) r.corrupt("was written with another config");
}

ContainerStats::ContainerStats(const StatsConfig& config)
    : cpu_(config.cpu), memory_(config.memory) {}

SampleVerdict ContainerStats::add(const Sample& s) {
  const std::optional<Seconds> t = toSeconds(s.time);
  const double psi = s.psiCpuWaitingRate.value_or(0);
  if (!t || !validValue(s.cpuCores) || !validValue(psi) || !validValue(s.memoryBytes)) {
    ++invalid_;
    return SampleVerdict::kInvalid;
  }
  const int days = std::max(cpu_.historyDays(), memory_.historyDays());
  const std::uint32_t day = dayIndex(*t);
  if (accepted_ > 0 && day + days <= dayIndex(last_)) {
    ++tooOld_;
    return SampleVerdict::kTooOld;
  }
  const std::uint32_t hour = hourIndex(*t);  // shared by both series
  cpu_.add(*t, hour, day, s.cpuCores * (1 + psi));
  memory_.add(*t, hour, day, s.memoryBytes);
  first_ = accepted_ == 0 ? *t : std::min(first_, *t);
  last_ = accepted_ == 0 ? *t : std::max(last_, *t);
  ++accepted_;
  return SampleVerdict::kAccepted;
}

bool ContainerStats::addOomKill(Time time, Bytes memory) {
  const std::optional<Seconds> t = toSeconds(time);
  if (!t || memory.value() < 0) return false;
  ++oomKills_;
  ooms_.push_back({*t, memory.value()});
  std::stable_sort(ooms_.begin(), ooms_.end(),
                   [](const OomKill& a, const OomKill& b) { return a.t < b.t; });
  // Keep only kills not dominated by a later-or-equal kill with at least as much memory, and
  // within the history window behind the latest kill.
  std::vector<OomKill> kept;
  std::int64_t laterMax = -1;
  const Seconds newest = ooms_.back().t;
  for (auto it = ooms_.rbegin(); it != ooms_.rend(); ++it) {
    if (it->bytes <= laterMax) continue;
    if (std::uint64_t{it->t} + historySeconds(memory_.config()) <= newest) continue;
    laterMax = it->bytes;
    kept.push_back(*it);
  }
  ooms_.assign(kept.rbegin(), kept.rend());
  return true;
}

std::optional<Bytes> ContainerStats::maxOomMemory(Time now) const {
  const std::optional<Seconds> n = toSeconds(now);
  if (!n) return std::nullopt;
  for (const OomKill& k : ooms_) {  // the first live kill is the largest
    if (k.t <= *n && std::uint64_t{k.t} + historySeconds(memory_.config()) > *n) {
      return Bytes(k.bytes);
    }
  }
  return std::nullopt;
}

std::optional<Time> ContainerStats::firstSampleTime() const {
  if (accepted_ == 0) return std::nullopt;
  return fromSeconds(first_);
}

std::optional<Time> ContainerStats::lastSampleTime() const {
  if (accepted_ == 0) return std::nullopt;
  return fromSeconds(last_);
}

std::size_t ContainerStats::bytesUsed() const {
  return sizeof(*this) + cpu_.heapBytes() + memory_.heapBytes() +
         ooms_.capacity() * sizeof(OomKill);
}

void ContainerStats::encode(Writer& w) const {
  w.varint(accepted_);
  w.varint(invalid_);
  w.varint(tooOld_);
  w.varint(oomKills_);
  w.u32(first_);
  w.u32(last_);
  cpu_.encode(w);
  memory_.encode(w);
  w.varint(ooms_.size());
  for (const OomKill& k : ooms_) {
    w.u32(k.t);
    w.u64(static_cast<std::uint64_t>(k.bytes));
  }
}

void ContainerStats::decode(Reader& r) {
  accepted_ = r.varint();
  invalid_ = r.varint();
  tooOld_ = r.varint();
  oomKills_ = r.varint();
  first_ = r.u32();
  last_ = r.u32();
  cpu_.decode(r);
  memory_.decode(r);
  const std::uint64_t n = r.varint();
  if (n > r.remaining() / 12) r.corrupt("has an OOM count beyond its size");
  ooms_.clear();
  for (std::uint64_t i = 0; r.ok() && i < n; ++i) {
    const Seconds t = r.u32();
    const auto bytes = static_cast<std::int64_t>(r.u64());
    if (bytes < 0) r.corrupt("has a negative OOM memory");
    ooms_.push_back({t, bytes});
  }
}

std::vector<std::uint8_t> ContainerStats::checkpoint() const {
  Writer w;
  writeHeader(w, kContainerKind, StatsConfig{.cpu = cpu_.config(), .memory = memory_.config()});
  encode(w);
  return std::move(w.bytes());
}

Result<ContainerStats> ContainerStats::restore(std::span<const std::uint8_t> blob,
                                               const StatsConfig& config) {
  Reader r(blob);
  checkHeader(r, kContainerKind, config);
  ContainerStats stats(config);
  if (r.ok()) stats.decode(r);
  if (r.ok() && r.remaining() != 0) r.corrupt("has trailing bytes");
  if (!r.ok()) return std::unexpected(r.error());
  return stats;
}

}  // namespace attune::stats
