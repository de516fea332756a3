#include "stats/store.h"

namespace attune::stats {
namespace {

constexpr std::uint8_t kStoreKind = 'S';

}  // namespace

ContainerStatsStore::ContainerStatsStore(const StatsConfig& config)
    : config_(std::make_unique<const StatsConfig>(config)) {}

ContainerStats& ContainerStatsStore::at(const ContainerKey& key) {
  auto it = containers_.find(key);
  if (it == containers_.end()) it = containers_.emplace(key, ContainerStats(*config_)).first;
  return it->second;
}

const ContainerStats* ContainerStatsStore::find(const ContainerKey& key) const {
  auto it = containers_.find(key);
  return it == containers_.end() ? nullptr : &it->second;
}

bool ContainerStatsStore::erase(const ContainerKey& key) { return containers_.erase(key) > 0; }

std::size_t ContainerStatsStore::statsBytes() const {
  std::size_t total = 0;
  for (const auto& [key, stats] : containers_) total += stats.bytesUsed();
  return total;
}

std::vector<std::uint8_t> ContainerStatsStore::checkpoint() const {
  Writer w;
  writeHeader(w, kStoreKind, *config_);
  w.varint(containers_.size());
  for (const auto& [key, stats] : containers_) {
    w.str(key.ns);
    w.str(key.workload);
    w.str(key.pod);
    w.str(key.container);
    stats.encode(w);
  }
  return std::move(w.bytes());
}

Result<ContainerStatsStore> ContainerStatsStore::restore(std::span<const std::uint8_t> blob,
                                                         const StatsConfig& config) {
  Reader r(blob);
  checkHeader(r, kStoreKind, config);
  ContainerStatsStore store(config);
  const std::uint64_t n = r.varint();
  for (std::uint64_t i = 0; r.ok() && i < n; ++i) {
    ContainerKey key;
    key.ns = r.str();
    key.workload = r.str();
    key.pod = r.str();
    key.container = r.str();
    if (r.ok() && store.containers_.contains(key)) r.corrupt("has a duplicate container");
    if (r.ok()) store.at(key).decode(r);
  }
  if (r.ok() && r.remaining() != 0) r.corrupt("has trailing bytes");
  if (!r.ok()) return std::unexpected(r.error());
  return store;
}

}  // namespace attune::stats
