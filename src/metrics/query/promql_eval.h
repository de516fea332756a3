// A small PromQL evaluator for instant queries over series held in process: what the simulator
// needs to answer the queries users write in annotations (the HPA guard's request-rate query)
// with Prometheus' semantics, without a Prometheus server.
//
// The subset (anything else is kUnsupported, with the column where it starts):
//   - number literals: 2, 0.5, 1e3
//   - instant selectors: name, name{label="v", label!="v", label=~"re", label!~"re"},
//     {__name__="name", ...}; the latest sample in (t - lookback, t] of each series
//   - range functions over a selector with a range: rate, irate, increase, avg_over_time,
//     max_over_time, min_over_time, sum_over_time: rate(name{...}[5m])
//   - aggregations: sum, avg, min, max, count, with `by (labels)` or `without (labels)` either
//     before or after the parenthesised argument
//   - binary arithmetic + - * / between scalars and vectors (one-to-one on identical label
//     sets between two vectors), with the usual precedence and parentheses
// Label values take single or double quotes. Durations: ms, s, m, h, d, w, y and compound
// ("1h30m"). Regular expressions are fully anchored, as in PromQL.
//
// Range windows are left-open, (t - range, t], as in Prometheus 3.
// rate/increase extrapolate to the window's edges as Prometheus does (counter resets are
// corrected; the extrapolation stops at zero for counters and at 1.1 average sample intervals
// from the edges); irate uses the last two samples.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/time.h"

namespace attune::metrics::query {

using Labels = std::map<std::string, std::string, std::less<>>;

struct LabelMatcher {
  enum class Op { kEqual, kNotEqual, kRegex, kNotRegex };
  std::string name;
  Op op = Op::kEqual;
  std::string value;
};

// What a selector asks of the store: the metric name is a matcher on __name__.
struct Selector {
  std::vector<LabelMatcher> matchers;
};

struct Sample {
  Time at;
  double value = 0;
};

struct Series {
  Labels labels;                // includes __name__
  std::vector<Sample> samples;  // oldest first
};

// Where the samples come from. select returns every series whose labels satisfy all matchers,
// with its samples in [from, to] (both inclusive), oldest first. Series without samples in the
// interval may be left out.
class SeriesStore {
 public:
  virtual ~SeriesStore() = default;
  virtual std::vector<Series> select(const Selector& selector, Time from, Time to) const = 0;
};

// True when `labels` satisfy every matcher (regexes fully anchored).
bool matches(const Labels& labels, const std::vector<LabelMatcher>& matchers);

struct Expression;  // the parsed query (opaque)

class Query {
 public:
  // Parses `promql`; kInvalidArgument or kUnsupported with the column ("column N: ...").
  static Result<Query> parse(std::string_view promql);

  Query(Query&&) noexcept;
  Query& operator=(Query&&) noexcept;
  ~Query();

  // One element of an instant vector result (a scalar result has one element, no labels).
  struct Element {
    Labels labels;
    double value = 0;
  };
  // Evaluates at `at`. A result with no elements is an empty vector (no data).
  Result<std::vector<Element>> evaluate(const SeriesStore& store, Time at,
                                        Duration lookback = std::chrono::minutes(5)) const;

 private:
  explicit Query(std::unique_ptr<Expression> root);
  std::unique_ptr<Expression> root_;
};

}  // namespace attune::metrics::query
