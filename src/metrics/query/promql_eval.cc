#include "metrics/query/promql_eval.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <variant>

namespace attune::metrics::query {

namespace {

Error columnError(ErrorCode code, std::size_t column, std::string_view what) {
  return Error{code, "column " + std::to_string(column + 1) + ": " + std::string(what), ""};
}

enum class RangeFunction {
  kRate,
  kIrate,
  kIncrease,
  kAvgOverTime,
  kMaxOverTime,
  kMinOverTime,
  kSumOverTime
};
enum class Aggregation { kSum, kAvg, kMin, kMax, kCount };

std::optional<RangeFunction> rangeFunction(std::string_view name) {
  if (name == "rate") return RangeFunction::kRate;
  if (name == "irate") return RangeFunction::kIrate;
  if (name == "increase") return RangeFunction::kIncrease;
  if (name == "avg_over_time") return RangeFunction::kAvgOverTime;
  if (name == "max_over_time") return RangeFunction::kMaxOverTime;
  if (name == "min_over_time") return RangeFunction::kMinOverTime;
  if (name == "sum_over_time") return RangeFunction::kSumOverTime;
  return std::nullopt;
}

struct DurationUnit {
  std::string_view text;
  Duration length;
};

// The unit at the start of `rest` (ms before m), as PromQL spells them.
std::optional<DurationUnit> durationUnit(std::string_view rest) {
  using std::chrono::hours;
  static const DurationUnit kUnits[] = {{"ms", std::chrono::milliseconds(1)},
                                        {"s", std::chrono::seconds(1)},
                                        {"m", std::chrono::minutes(1)},
                                        {"h", hours(1)},
                                        {"d", hours(24)},
                                        {"w", hours(24 * 7)},
                                        {"y", hours(24 * 365)}};
  for (const auto& unit : kUnits) {
    if (rest.starts_with(unit.text)) return unit;
  }
  return std::nullopt;
}

std::optional<Aggregation> aggregation(std::string_view name) {
  if (name == "sum") return Aggregation::kSum;
  if (name == "avg") return Aggregation::kAvg;
  if (name == "min") return Aggregation::kMin;
  if (name == "max") return Aggregation::kMax;
  if (name == "count") return Aggregation::kCount;
  return std::nullopt;
}

}  // namespace

// The parsed query: a tree of these.
struct Expression {
  struct Number {
    double value = 0;
  };
  struct VectorSelector {
    Selector selector;
  };
  struct RangeCall {
    RangeFunction function = RangeFunction::kRate;
    Selector selector;
    Duration range{};
  };
  struct Aggregate {
    Aggregation op = Aggregation::kSum;
    bool without = false;
    std::vector<std::string> grouping;
    std::unique_ptr<Expression> argument;
  };
  struct Binary {
    char op = '+';
    std::unique_ptr<Expression> lhs;
    std::unique_ptr<Expression> rhs;
  };
  using Node = std::variant<Number, VectorSelector, RangeCall, Aggregate, Binary>;

  explicit Expression(Node n) : node(std::move(n)) {}
  Node node;
};

namespace {

// ---- Parsing

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<std::unique_ptr<Expression>> parseAll() {
    auto expr = parseSum();
    if (!expr) return expr;
    skipSpace();
    if (pos_ != text_.size()) return fail(ErrorCode::kInvalidArgument, "unexpected text");
    return expr;
  }

 private:
  std::unexpected<Error> fail(ErrorCode code, std::string_view what) const {
    return std::unexpected(columnError(code, pos_, what));
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string_view identifier() {
    skipSpace();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_' || (text_[pos_] == ':' && pos_ > start))) {
      if (pos_ == start && std::isdigit(static_cast<unsigned char>(text_[pos_]))) break;
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  // sum := product (('+' | '-') product)*
  Result<std::unique_ptr<Expression>> parseSum() {
    auto lhs = parseProduct();
    if (!lhs) return lhs;
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-')) return lhs;
      const char op = text_[pos_++];
      auto rhs = parseProduct();
      if (!rhs) return rhs;
      lhs = binary(op, std::move(*lhs), std::move(*rhs));
    }
  }

  // product := unary (('*' | '/') unary)*
  Result<std::unique_ptr<Expression>> parseProduct() {
    auto lhs = parseUnary();
    if (!lhs) return lhs;
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || (text_[pos_] != '*' && text_[pos_] != '/')) return lhs;
      const char op = text_[pos_++];
      auto rhs = parseUnary();
      if (!rhs) return rhs;
      lhs = binary(op, std::move(*lhs), std::move(*rhs));
    }
  }

  static Result<std::unique_ptr<Expression>> binary(char op, std::unique_ptr<Expression> lhs,
                                                    std::unique_ptr<Expression> rhs) {
    auto node =
        std::make_unique<Expression>(Expression::Binary{op, std::move(lhs), std::move(rhs)});
    return node;
  }

  Result<std::unique_ptr<Expression>> parseUnary() {
    if (consume('-')) {
      auto operand = parseUnary();
      if (!operand) return operand;
      auto zero = std::make_unique<Expression>(Expression::Number{0});
      return binary('-', std::move(zero), std::move(*operand));
    }
    return parsePrimary();
  }

  Result<std::unique_ptr<Expression>> parsePrimary() {
    skipSpace();
    if (pos_ >= text_.size()) return fail(ErrorCode::kInvalidArgument, "expression expected");
    if (consume('(')) {
      auto inner = parseSum();
      if (!inner) return inner;
      if (!consume(')')) return fail(ErrorCode::kInvalidArgument, "')' expected");
      return inner;
    }
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parseNumber();
    if (c == '{') return parseSelectorExpression("");
    const std::size_t nameAt = pos_;
    const std::string_view name = identifier();
    if (name.empty()) return fail(ErrorCode::kInvalidArgument, "expression expected");
    if (auto op = aggregation(name)) return parseAggregation(*op);
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (auto function = rangeFunction(name)) return parseRangeCall(*function);
      pos_ = nameAt;
      return fail(ErrorCode::kUnsupported, "function " + std::string(name) + " is not supported");
    }
    return parseSelectorExpression(name);
  }

  Result<std::unique_ptr<Expression>> parseNumber() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E' ||
                                   ((text_[pos_] == '+' || text_[pos_] == '-') && pos_ > start &&
                                    (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E')))) {
      ++pos_;
    }
    double value = 0;
    const auto* begin = text_.data() + start;
    const auto* end = text_.data() + pos_;
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr != end) {
      pos_ = start;
      return fail(ErrorCode::kInvalidArgument, "malformed number");
    }
    auto node = std::make_unique<Expression>(Expression::Number{value});
    return node;
  }

  Result<Selector> parseSelector(std::string_view name) {
    Selector selector;
    if (!name.empty()) {
      selector.matchers.push_back({"__name__", LabelMatcher::Op::kEqual, std::string(name)});
    }
    if (consume('{')) {
      while (!consume('}')) {
        const std::string_view label = identifier();
        if (label.empty()) return fail(ErrorCode::kInvalidArgument, "label name expected");
        auto op = matchOperator();
        if (!op) return std::unexpected(op.error());
        auto value = quoted();
        if (!value) return std::unexpected(value.error());
        if (*op == LabelMatcher::Op::kRegex || *op == LabelMatcher::Op::kNotRegex) {
          try {
            std::regex check(*value);
          } catch (const std::regex_error&) {
            return fail(ErrorCode::kInvalidArgument, "invalid regular expression");
          }
        }
        selector.matchers.push_back({std::string(label), *op, std::move(*value)});
        if (!consume(',')) {
          if (!consume('}')) return fail(ErrorCode::kInvalidArgument, "',' or '}' expected");
          break;
        }
      }
    }
    if (selector.matchers.empty()) {
      return fail(ErrorCode::kInvalidArgument, "a selector needs a metric name or a matcher");
    }
    return selector;
  }

  Result<LabelMatcher::Op> matchOperator() {
    skipSpace();
    struct Spelling {
      std::string_view text;
      LabelMatcher::Op op;
    };
    static constexpr Spelling kSpellings[] = {{"=~", LabelMatcher::Op::kRegex},
                                              {"!~", LabelMatcher::Op::kNotRegex},
                                              {"!=", LabelMatcher::Op::kNotEqual},
                                              {"=", LabelMatcher::Op::kEqual}};
    for (const auto& spelling : kSpellings) {
      if (text_.substr(pos_).starts_with(spelling.text)) {
        pos_ += spelling.text.size();
        return spelling.op;
      }
    }
    return fail(ErrorCode::kInvalidArgument, "label matcher (=, !=, =~, !~) expected");
  }

  Result<std::string> quoted() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\'')) {
      return fail(ErrorCode::kInvalidArgument, "quoted label value expected");
    }
    const char quote = text_[pos_++];
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      value += text_[pos_++];
    }
    if (pos_ >= text_.size()) return fail(ErrorCode::kInvalidArgument, "unterminated string");
    ++pos_;
    return value;
  }

  Result<std::unique_ptr<Expression>> parseSelectorExpression(std::string_view name) {
    auto selector = parseSelector(name);
    if (!selector) return std::unexpected(selector.error());
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '[') {
      return fail(ErrorCode::kUnsupported, "a range vector must be the argument of a function");
    }
    auto node = std::make_unique<Expression>(Expression::VectorSelector{std::move(*selector)});
    return node;
  }

  Result<Duration> parseRange() {
    if (!consume('[')) return fail(ErrorCode::kInvalidArgument, "'[range]' expected");
    skipSpace();
    const std::size_t start = pos_;
    Duration total{};
    while (pos_ < text_.size() && text_[pos_] != ']') {
      std::int64_t amount = 0;
      const auto* begin = text_.data() + pos_;
      auto [ptr, ec] = std::from_chars(begin, text_.data() + text_.size(), amount);
      if (ec != std::errc() || ptr == begin) {
        return fail(ErrorCode::kInvalidArgument, "malformed duration");
      }
      pos_ += static_cast<std::size_t>(ptr - begin);
      auto unit = durationUnit(text_.substr(pos_));
      if (!unit) {
        return fail(ErrorCode::kInvalidArgument, "duration unit (ms, s, m, h, d, w, y) expected");
      }
      pos_ += unit->text.size();
      total += amount * unit->length;
    }
    if (!consume(']')) return fail(ErrorCode::kInvalidArgument, "']' expected");
    if (total <= Duration::zero()) {
      pos_ = start;
      return fail(ErrorCode::kInvalidArgument, "the range must be positive");
    }
    return total;
  }

  Result<std::unique_ptr<Expression>> parseRangeCall(RangeFunction function) {
    if (!consume('(')) return fail(ErrorCode::kInvalidArgument, "'(' expected");
    skipSpace();
    std::string_view name;
    if (pos_ < text_.size() && text_[pos_] != '{') name = identifier();
    auto selector = parseSelector(name);
    if (!selector) return std::unexpected(selector.error());
    auto range = parseRange();
    if (!range) return std::unexpected(range.error());
    if (!consume(')')) return fail(ErrorCode::kInvalidArgument, "')' expected");
    auto node =
        std::make_unique<Expression>(Expression::RangeCall{function, std::move(*selector), *range});
    return node;
  }

  Result<void> parseGrouping(Expression::Aggregate& aggregate) {
    skipSpace();
    const std::size_t at = pos_;
    const std::string_view word = identifier();
    if (word != "by" && word != "without") {
      pos_ = at;
      return {};
    }
    aggregate.without = word == "without";
    if (!consume('('))
      return fail(ErrorCode::kInvalidArgument, "'(' expected after " + std::string(word));
    while (!consume(')')) {
      const std::string_view label = identifier();
      if (label.empty()) return fail(ErrorCode::kInvalidArgument, "label name expected");
      aggregate.grouping.emplace_back(label);
      if (!consume(',')) {
        if (!consume(')')) return fail(ErrorCode::kInvalidArgument, "',' or ')' expected");
        break;
      }
    }
    return {};
  }

  Result<std::unique_ptr<Expression>> parseAggregation(Aggregation op) {
    Expression::Aggregate aggregate{.op = op};
    if (auto ok = parseGrouping(aggregate); !ok) return std::unexpected(ok.error());
    if (!consume('(')) return fail(ErrorCode::kInvalidArgument, "'(' expected");
    auto argument = parseSum();
    if (!argument) return argument;
    if (!consume(')')) return fail(ErrorCode::kInvalidArgument, "')' expected");
    if (aggregate.grouping.empty() && !aggregate.without) {
      if (auto ok = parseGrouping(aggregate); !ok) return std::unexpected(ok.error());
    }
    aggregate.argument = std::move(*argument);
    auto node = std::make_unique<Expression>(std::move(aggregate));
    return node;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// ---- Evaluation

using Vector = std::vector<Query::Element>;
using Value = std::variant<double, Vector>;

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

Labels withoutName(Labels labels) {
  labels.erase("__name__");
  return labels;
}

// Prometheus' extrapolatedRate: the increase over the samples in the window, corrected for
// counter resets and extrapolated towards the window's edges.
std::optional<double> extrapolatedIncrease(const std::vector<Sample>& samples, Time start, Time end,
                                           bool isRate) {
  if (samples.size() < 2) return std::nullopt;
  const Sample& first = samples.front();
  const Sample& last = samples.back();
  double increase = last.value - first.value;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    if (samples[i].value < samples[i - 1].value) increase += samples[i - 1].value;
  }
  const double sampled = seconds(last.at - first.at);
  if (sampled <= 0) return std::nullopt;
  double toStart = seconds(first.at - start);
  const double toEnd = seconds(end - last.at);
  const double averageGap = sampled / static_cast<double>(samples.size() - 1);
  if (increase > 0 && first.value >= 0) {
    const double toZero = sampled * (first.value / increase);
    toStart = std::min(toStart, toZero);
  }
  const double threshold = averageGap * 1.1;
  double interval = sampled;
  interval += toStart < threshold ? toStart : averageGap / 2;
  interval += toEnd < threshold ? toEnd : averageGap / 2;
  double result = increase * (interval / sampled);
  if (isRate) result /= seconds(end - start);
  return result;
}

std::optional<double> applyRange(RangeFunction function, const std::vector<Sample>& samples,
                                 Time start, Time end) {
  if (samples.empty()) return std::nullopt;
  switch (function) {
    case RangeFunction::kRate:
      return extrapolatedIncrease(samples, start, end, true);
    case RangeFunction::kIncrease:
      return extrapolatedIncrease(samples, start, end, false);
    case RangeFunction::kIrate: {
      if (samples.size() < 2) return std::nullopt;
      const Sample& a = samples[samples.size() - 2];
      const Sample& b = samples.back();
      const double gap = seconds(b.at - a.at);
      if (gap <= 0) return std::nullopt;
      const double delta = b.value < a.value ? b.value : b.value - a.value;
      return delta / gap;
    }
    case RangeFunction::kAvgOverTime:
    case RangeFunction::kSumOverTime: {
      double sum = 0;
      for (const auto& s : samples) sum += s.value;
      return function == RangeFunction::kSumOverTime ? sum
                                                     : sum / static_cast<double>(samples.size());
    }
    case RangeFunction::kMaxOverTime:
    case RangeFunction::kMinOverTime: {
      auto [lo, hi] =
          std::minmax_element(samples.begin(), samples.end(),
                              [](const Sample& x, const Sample& y) { return x.value < y.value; });
      return function == RangeFunction::kMaxOverTime ? hi->value : lo->value;
    }
  }
  return std::nullopt;
}

// Samples strictly after `from` (Prometheus' left-open windows).
std::vector<Sample> after(const std::vector<Sample>& samples, Time from) {
  std::vector<Sample> kept;
  for (const auto& s : samples) {
    if (s.at > from) kept.push_back(s);
  }
  return kept;
}

Labels groupLabels(const Labels& labels, const Expression::Aggregate& aggregate) {
  Labels key;
  if (aggregate.without) {
    key = withoutName(labels);
    for (const auto& name : aggregate.grouping) key.erase(name);
  } else {
    for (const auto& name : aggregate.grouping) {
      if (auto it = labels.find(name); it != labels.end()) key.emplace(name, it->second);
    }
  }
  return key;
}

class Evaluator {
 public:
  Evaluator(const SeriesStore& store, Time at, Duration lookback)
      : store_(store), at_(at), lookback_(lookback) {}

  Result<Value> eval(const Expression& expr) const {
    return std::visit([&](const auto& node) { return evalNode(node); }, expr.node);
  }

 private:
  Result<Value> evalNode(const Expression::Number& n) const { return Value(n.value); }

  Result<Value> evalNode(const Expression::VectorSelector& s) const {
    const Time from = at_ - lookback_;
    Vector out;
    for (auto& series : store_.select(s.selector, from, at_)) {
      auto kept = after(series.samples, from);
      if (kept.empty()) continue;
      out.push_back({std::move(series.labels), kept.back().value});
    }
    return Value(std::move(out));
  }

  Result<Value> evalNode(const Expression::RangeCall& call) const {
    const Time from = at_ - call.range;
    Vector out;
    for (auto& series : store_.select(call.selector, from, at_)) {
      auto value = applyRange(call.function, after(series.samples, from), from, at_);
      if (value) out.push_back({withoutName(std::move(series.labels)), *value});
    }
    return Value(std::move(out));
  }

  Result<Value> evalNode(const Expression::Aggregate& aggregate) const {
    auto argument = eval(*aggregate.argument);
    if (!argument) return argument;
    const auto* input = std::get_if<Vector>(&*argument);
    if (input == nullptr) {
      return std::unexpected(
          Error{ErrorCode::kInvalidArgument, "an aggregation needs an instant vector", ""});
    }
    struct Group {
      double sum = 0, min = std::numeric_limits<double>::infinity(),
             max = -std::numeric_limits<double>::infinity();
      std::size_t count = 0;
    };
    std::map<Labels, Group> groups;
    for (const auto& element : *input) {
      Group& g = groups[groupLabels(element.labels, aggregate)];
      g.sum += element.value;
      g.min = std::min(g.min, element.value);
      g.max = std::max(g.max, element.value);
      ++g.count;
    }
    Vector out;
    for (auto& [labels, g] : groups) {
      double value = 0;
      switch (aggregate.op) {
        case Aggregation::kSum:
          value = g.sum;
          break;
        case Aggregation::kAvg:
          value = g.sum / static_cast<double>(g.count);
          break;
        case Aggregation::kMin:
          value = g.min;
          break;
        case Aggregation::kMax:
          value = g.max;
          break;
        case Aggregation::kCount:
          value = static_cast<double>(g.count);
          break;
      }
      out.push_back({labels, value});
    }
    return Value(std::move(out));
  }

  static double arithmetic(char op, double a, double b) {
    switch (op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      default:
        return a / b;  // IEEE: x/0 is ±Inf or NaN, as in PromQL
    }
  }

  Result<Value> evalNode(const Expression::Binary& binary) const {
    auto lhs = eval(*binary.lhs);
    if (!lhs) return lhs;
    auto rhs = eval(*binary.rhs);
    if (!rhs) return rhs;
    const auto* a = std::get_if<double>(&*lhs);
    const auto* b = std::get_if<double>(&*rhs);
    if (a != nullptr && b != nullptr) return Value(arithmetic(binary.op, *a, *b));
    if (a != nullptr || b != nullptr) {
      Vector out = std::get<Vector>(a != nullptr ? *rhs : *lhs);
      for (auto& element : out) {
        element.labels = withoutName(std::move(element.labels));
        element.value = a != nullptr ? arithmetic(binary.op, *a, element.value)
                                     : arithmetic(binary.op, element.value, *b);
      }
      return Value(std::move(out));
    }
    // Vector with vector: one-to-one on identical label sets (without the metric name).
    std::map<Labels, double> right;
    for (const auto& element : std::get<Vector>(*rhs)) {
      right.emplace(withoutName(element.labels), element.value);
    }
    Vector out;
    for (const auto& element : std::get<Vector>(*lhs)) {
      Labels key = withoutName(element.labels);
      if (auto it = right.find(key); it != right.end()) {
        out.push_back({std::move(key), arithmetic(binary.op, element.value, it->second)});
      }
    }
    return Value(std::move(out));
  }

  const SeriesStore& store_;
  Time at_;
  Duration lookback_;
};

}  // namespace

bool matches(const Labels& labels, const std::vector<LabelMatcher>& matchers) {
  for (const auto& m : matchers) {
    auto it = labels.find(m.name);
    const std::string value = it == labels.end() ? std::string() : it->second;
    switch (m.op) {
      case LabelMatcher::Op::kEqual:
        if (value != m.value) return false;
        break;
      case LabelMatcher::Op::kNotEqual:
        if (value == m.value) return false;
        break;
      case LabelMatcher::Op::kRegex:
      case LabelMatcher::Op::kNotRegex: {
        const bool hit = std::regex_match(value, std::regex(m.value));
        if (hit != (m.op == LabelMatcher::Op::kRegex)) return false;
        break;
      }
    }
  }
  return true;
}

Query::Query(std::unique_ptr<Expression> root) : root_(std::move(root)) {}
Query::Query(Query&&) noexcept = default;
Query& Query::operator=(Query&&) noexcept = default;
Query::~Query() = default;

Result<Query> Query::parse(std::string_view promql) {
  auto root = Parser(promql).parseAll();
  if (!root) return std::unexpected(root.error());
  return Query(std::move(*root));
}

Result<std::vector<Query::Element>> Query::evaluate(const SeriesStore& store, Time at,
                                                    Duration lookback) const {
  auto value = Evaluator(store, at, lookback).eval(*root_);
  if (!value) return std::unexpected(value.error());
  if (const auto* scalar = std::get_if<double>(&*value)) {
    return std::vector<Element>{Element{{}, *scalar}};
  }
  return std::get<Vector>(std::move(*value));
}

}  // namespace attune::metrics::query
