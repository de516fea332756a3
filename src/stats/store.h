// Statistics of many containers, keyed by namespace, workload, pod and container.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "stats/config.h"
#include "stats/container_stats.h"

namespace attune::stats {

struct ContainerKey {
  std::string ns;
  std::string workload;  // e.g. "Deployment/web"
  std::string pod;
  std::string container;
  auto operator<=>(const ContainerKey&) const = default;
};

// Owns its config (shared by every container). Movable, not copyable. Not thread-safe.
class ContainerStatsStore {
 public:
  // Requires config.validate() to succeed.
  explicit ContainerStatsStore(const StatsConfig& config);

  // The container's statistics, created empty on first use.
  ContainerStats& at(const ContainerKey& key);
  // nullptr when the container has none.
  const ContainerStats* find(const ContainerKey& key) const;
  bool erase(const ContainerKey& key);
  std::size_t size() const { return containers_.size(); }
  const StatsConfig& config() const { return *config_; }

  // Sum of bytesUsed() over the containers (keys and map nodes excluded).
  std::size_t statsBytes() const;

  // Every container in one versioned blob; restore() fails (kInvalidArgument) on a truncated
  // or corrupt blob or one written with another config.
  std::vector<std::uint8_t> checkpoint() const;
  static Result<ContainerStatsStore> restore(std::span<const std::uint8_t> blob,
                                             const StatsConfig& config);

 private:
  std::unique_ptr<const StatsConfig> config_;  // stable address for the containers
  std::map<ContainerKey, ContainerStats> containers_;
};

}  // namespace attune::stats
