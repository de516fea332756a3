#include "usage/usage_reading.h"

#include <utility>

namespace attune::usage {

ReadRange readRange(Time start, Time end, Duration step) {
  return {.samples = {start, end, step}, .oomKills = {start - step, end, step}};
}

std::size_t stepsOf(const metrics::Range& range) {
  if (range.end < range.start) return 0;
  return static_cast<std::size_t>((range.end - range.start) / range.step) + 1;
}

UsageView viewOf(const UsageReading& reading) {
  const auto view = [](const std::vector<metrics::ContainerSeries>& all) {
    std::vector<SeriesView> out;
    out.reserve(all.size());
    for (const auto& s : all) out.push_back({&s.id, s.points});
    return out;
  };
  return {.cpu = view(reading.cpu),
          .psi = view(reading.psi),
          .memory = view(reading.memory),
          .oomKills = reading.oomKills};
}

Result<UsageReading> readUsage(metrics::MetricsSource& source, const metrics::Scope& scope,
                               const ReadRange& range, const QueryObserver& observer) {
  UsageReading out;
  // Runs one query, telling the observer before and after.
  const auto run = [&](std::string_view query, auto& into, auto ask) -> Result<void> {
    if (observer) observer(query, std::nullopt);
    auto answer = ask();
    if (!answer) return std::unexpected(answer.error());
    into = std::move(*answer);
    if (observer) observer(query, into.size());
    return {};
  };
  Result<void> ok =
      run("cpu usage", out.cpu, [&] { return source.cpuUsage(scope, range.samples); });
  if (ok) {
    ok = run("cpu pressure", out.psi,
             [&] { return source.cpuPressureWaiting(scope, range.samples); });
  }
  if (ok) {
    ok = run("memory working set", out.memory,
             [&] { return source.memoryWorkingSet(scope, range.samples); });
  }
  if (ok) {
    ok = run("oom kills", out.oomKills, [&] { return source.oomKills(scope, range.oomKills); });
  }
  if (!ok) return std::unexpected(ok.error());
  return out;
}

}  // namespace attune::usage
