#include "sim/faults/fault_injector.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace attune::sim {
namespace {

constexpr std::array<FaultKind, kFaultKindCount> kAllKinds = {
    FaultKind::kNone,      FaultKind::kConflict,     FaultKind::kTimeout,
    FaultKind::kThrottled, FaultKind::kServerError,  FaultKind::kWatchDropped,
    FaultKind::kWatchGone, FaultKind::kResponseLost,
};

bool applies(FaultKind fault, RequestKind request) {
  switch (fault) {
    case FaultKind::kNone:
      return false;
    case FaultKind::kTimeout:
    case FaultKind::kThrottled:
    case FaultKind::kServerError:
      return true;
    case FaultKind::kConflict:
      return request == RequestKind::kConditionalWrite;
    case FaultKind::kWatchDropped:
      return request == RequestKind::kWatch;
    case FaultKind::kWatchGone:
      return request == RequestKind::kWatch || request == RequestKind::kListContinue;
    case FaultKind::kResponseLost:
      return request == RequestKind::kWrite || request == RequestKind::kConditionalWrite;
  }
  return false;
}

double clampRate(double rate) { return std::clamp(rate, 0.0, 1.0); }

}  // namespace

std::string_view toString(FaultKind kind) {
  switch (kind) {
    case FaultKind::kNone:
      return "none";
    case FaultKind::kConflict:
      return "conflict";
    case FaultKind::kTimeout:
      return "timeout";
    case FaultKind::kThrottled:
      return "throttled";
    case FaultKind::kServerError:
      return "server-error";
    case FaultKind::kWatchDropped:
      return "watch-dropped";
    case FaultKind::kWatchGone:
      return "watch-gone";
    case FaultKind::kResponseLost:
      return "response-lost";
  }
  return "none";
}

std::optional<FaultKind> parseFaultKind(std::string_view name) {
  for (FaultKind kind : kAllKinds) {
    if (toString(kind) == name) return kind;
  }
  static constexpr std::pair<std::string_view, FaultKind> kAliases[] = {
      {"throttle", FaultKind::kThrottled}, {"error", FaultKind::kServerError},
      {"reset", FaultKind::kTimeout},      {"drop-watch", FaultKind::kWatchDropped},
      {"gone", FaultKind::kWatchGone},
  };
  for (const auto& [alias, kind] : kAliases) {
    if (alias == name) return kind;
  }
  return std::nullopt;
}

Result<std::set<FaultKind>> parseFaultKinds(std::string_view list,
                                            std::span<const FaultKind> allowed) {
  std::set<FaultKind> out;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) continue;
    if (name == "all") {
      out.insert(allowed.begin(), allowed.end());
      continue;
    }
    const std::optional<FaultKind> kind = parseFaultKind(name);
    if (!kind || std::ranges::find(allowed, *kind) == allowed.end()) {
      std::string want;
      for (FaultKind k : allowed) want += std::string(toString(k)) + ", ";
      return fail(ErrorCode::kInvalidArgument,
                  "unknown fault \"" + std::string(name) + "\"; want " + want + "or all", "faults");
    }
    out.insert(*kind);
  }
  return out;
}

std::set<FaultKind> allFaultKinds() { return {kAllKinds.begin() + 1, kAllKinds.end()}; }

int httpStatusOf(FaultKind kind) {
  switch (kind) {
    case FaultKind::kConflict:
      return 409;
    case FaultKind::kTimeout:
      return 504;
    case FaultKind::kThrottled:
      return 429;
    case FaultKind::kServerError:
      return 500;
    case FaultKind::kWatchGone:
      return 410;
    case FaultKind::kNone:
    case FaultKind::kWatchDropped:
    case FaultKind::kResponseLost:
      return 0;
  }
  return 0;
}

std::string_view toString(RequestKind kind) {
  switch (kind) {
    case RequestKind::kRead:
      return "read";
    case RequestKind::kWatch:
      return "watch";
    case RequestKind::kWrite:
      return "write";
    case RequestKind::kConditionalWrite:
      return "conditional-write";
    case RequestKind::kListContinue:
      return "list-continue";
  }
  return "read";
}

FaultInjector::FaultInjector(FaultOptions options)
    : options_(std::move(options)), random_(options_.seed) {
  options_.rate = clampRate(options_.rate);
  options_.kinds.erase(FaultKind::kNone);
}

void FaultInjector::setRate(double rate) { options_.rate = clampRate(rate); }

FaultKind FaultInjector::next(RequestKind kind) {
  ++requests_;
  // Two draws per request whatever the outcome, so that one request's kind never shifts the
  // decisions for the requests after it.
  const bool fails = random_.uniform() < options_.rate;
  const std::uint64_t pick = random_.next();
  if (!fails) return FaultKind::kNone;
  std::vector<FaultKind> candidates;
  for (FaultKind f : options_.kinds) {
    if (applies(f, kind)) candidates.push_back(f);
  }
  if (candidates.empty()) return FaultKind::kNone;
  const FaultKind fault = candidates[pick % candidates.size()];
  ++injected_[static_cast<std::size_t>(fault)];
  return fault;
}

std::uint64_t FaultInjector::injected(FaultKind kind) const {
  return injected_[static_cast<std::size_t>(kind)];
}

std::uint64_t FaultInjector::injected() const {
  std::uint64_t total = 0;
  for (std::size_t i = 1; i < injected_.size(); ++i) total += injected_[i];
  return total;
}

}  // namespace attune::sim
