#include "sim/kubelet/cpu_share.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace attune::sim {

CfsTick cfsThrottle(double demandCores, double limitCores, double activeSeconds,
                    double periodSeconds, double burstiness) {
  assert(demandCores >= 0 && activeSeconds >= 0 && periodSeconds > 0);
  CfsTick out;
  out.usageCores = demandCores;
  if (limitCores <= 0 || demandCores <= 0 || activeSeconds <= 0) return out;

  const double d = demandCores;
  const double limit = limitCores;
  const double b = std::clamp(burstiness, 0.0, 1.0);
  const double lo = d * (1 - b);
  const double hi = d * (1 + b);
  const double periods = activeSeconds / periodSeconds;
  out.periods = static_cast<std::uint64_t>(std::llround(periods));

  double ratio = 0;
  double throttledShare = 0;  // E[1 - L/D | D > L]
  if (hi <= limit) {
    return out;  // never above the quota
  }
  if (lo >= limit) {
    ratio = 1;
    out.usageCores = limit;
    // E[1 - L/D] for D uniform on [lo, hi] (or the point d when b = 0).
    throttledShare = hi > lo ? 1 - limit * std::log(hi / lo) / (hi - lo) : 1 - limit / d;
  } else {
    const double width = hi - lo;  // > 0 here
    ratio = (hi - limit) / width;
    out.usageCores = d - (hi - limit) * (hi - limit) / (2 * width);
    throttledShare = 1 - limit * std::log(hi / limit) / (hi - limit);
  }
  const double throttled = periods * ratio;
  out.throttledPeriods = std::min(out.periods, static_cast<std::uint64_t>(std::llround(throttled)));
  out.throttledSeconds = throttled * periodSeconds * throttledShare;
  return out;
}

double cpuShares(Millicores request) {
  const double shares = static_cast<double>(request.value()) * 1024.0 / 1000.0;
  return std::max(2.0, shares);
}

void shareCpu(std::span<CpuClaim> claims, double capacityCores, std::vector<std::size_t>& scratch) {
  double total = 0;
  for (auto& c : claims) {
    c.gotCores = c.wantCores;
    total += c.wantCores;
  }
  if (capacityCores <= 0 || total <= capacityCores) return;

  // Water-filling: visit claims by want/weight ascending; each claim below the current fair
  // level gets its want, the rest share what remains by weight.
  scratch.clear();
  double weights = 0;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    assert(claims[i].weight > 0);
    scratch.push_back(i);
    weights += claims[i].weight;
  }
  // Ties keep input order (std::sort with an index tie-break: deterministic, no allocation).
  std::sort(scratch.begin(), scratch.end(), [&](std::size_t a, std::size_t b) {
    const double lhs = claims[a].wantCores * claims[b].weight;
    const double rhs = claims[b].wantCores * claims[a].weight;
    return lhs < rhs || (lhs == rhs && a < b);
  });
  double remaining = capacityCores;
  std::size_t k = 0;
  for (; k < scratch.size(); ++k) {
    CpuClaim& c = claims[scratch[k]];
    if (c.wantCores * weights > remaining * c.weight) break;  // wants more than its fair share
    remaining -= c.wantCores;
    weights -= c.weight;
  }
  for (; k < scratch.size(); ++k) {
    CpuClaim& c = claims[scratch[k]];
    c.gotCores = weights > 0 ? remaining * c.weight / weights : 0;
  }
}

}  // namespace attune::sim
