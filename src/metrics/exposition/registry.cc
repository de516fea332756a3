#include "metrics/exposition/registry.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <utility>

#include "metrics/exposition/text_format.h"

namespace attune::metrics {
namespace {

std::string_view typeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

MetricFamily::MetricFamily(std::string name, std::string help, MetricType type,
                           std::vector<std::string> labelNames, std::vector<double> buckets)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      labelNames_(std::move(labelNames)),
      bounds_(std::move(buckets)) {}

std::size_t MetricFamily::LabelValuesHash::operator()(
    const std::vector<std::string>& values) const {
  std::size_t h = values.size();
  for (const std::string& v : values) {
    h ^= std::hash<std::string_view>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

MetricFamily::Series& MetricFamily::series(const std::vector<std::string>& labelValues) {
  assert(labelValues.size() == labelNames_.size());
  auto [it, inserted] = series_.try_emplace(labelValues);
  if (inserted && type_ == MetricType::kHistogram) it->second.buckets.assign(bounds_.size(), 0);
  return it->second;
}

void MetricFamily::inc(const std::vector<std::string>& labelValues, double delta) {
  assert(type_ == MetricType::kCounter);
  std::lock_guard lock(mutex_);
  Series& s = series(labelValues);
  if (delta > 0) s.value += delta;
}

void MetricFamily::set(const std::vector<std::string>& labelValues, double value) {
  assert(type_ == MetricType::kGauge);
  std::lock_guard lock(mutex_);
  series(labelValues).value = value;
}

void MetricFamily::remove(const std::vector<std::string>& labelValues) {
  std::lock_guard lock(mutex_);
  series_.erase(labelValues);
}

void MetricFamily::observe(const std::vector<std::string>& labelValues, double value) {
  assert(type_ == MetricType::kHistogram);
  std::lock_guard lock(mutex_);
  Series& s = series(labelValues);
  s.value += value;
  ++s.count;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    if (value <= bounds_[i]) ++s.buckets[i];
  }
}

double MetricFamily::value(const std::vector<std::string>& labelValues) const {
  std::lock_guard lock(mutex_);
  auto it = series_.find(labelValues);
  return it == series_.end() ? 0 : it->second.value;
}

std::uint64_t MetricFamily::count(const std::vector<std::string>& labelValues) const {
  std::lock_guard lock(mutex_);
  auto it = series_.find(labelValues);
  return it == series_.end() ? 0 : it->second.count;
}

void MetricFamily::render(std::string& out) const {
  std::lock_guard lock(mutex_);
  appendFamilyHeader(out, name_, help_, typeName(type_));
  std::vector<const std::pair<const std::vector<std::string>, Series>*> sorted;
  sorted.reserve(series_.size());
  for (const auto& entry : series_) sorted.push_back(&entry);
  std::ranges::sort(
      sorted, {}, [](const auto* entry) -> const auto& { return entry->first; });
  std::vector<LabelPair> labels;
  for (const auto* entry : sorted) {
    const auto& [values, s] = *entry;
    labels.clear();
    for (std::size_t i = 0; i < labelNames_.size(); ++i) {
      labels.emplace_back(labelNames_[i], values[i]);
    }
    if (type_ != MetricType::kHistogram) {
      appendSample(out, name_, labels, s.value);
      continue;
    }
    const std::string bucketName = name_ + "_bucket";
    for (std::size_t i = 0; i <= bounds_.size(); ++i) {
      const bool inf = i == bounds_.size();
      const std::string le = inf ? "+Inf" : formatSampleValue(bounds_[i]);
      labels.emplace_back("le", le);
      appendSample(out, bucketName, labels, static_cast<double>(inf ? s.count : s.buckets[i]));
      labels.pop_back();
    }
    appendSample(out, name_ + "_sum", labels, s.value);
    appendSample(out, name_ + "_count", labels, static_cast<double>(s.count));
  }
}

MetricFamily& Registry::add(std::string name, std::string help, MetricType type,
                            std::vector<std::string> labelNames, std::vector<double> buckets) {
  std::lock_guard lock(mutex_);
  if (auto it = families_.find(name); it != families_.end()) {
    assert(it->second->type() == type);
    return *it->second;
  }
  auto family = std::make_unique<MetricFamily>(name, std::move(help), type, std::move(labelNames),
                                               std::move(buckets));
  return *families_.emplace(std::move(name), std::move(family)).first->second;
}

MetricFamily& Registry::counter(std::string name, std::string help,
                                std::vector<std::string> labelNames) {
  return add(std::move(name), std::move(help), MetricType::kCounter, std::move(labelNames), {});
}

MetricFamily& Registry::gauge(std::string name, std::string help,
                              std::vector<std::string> labelNames) {
  return add(std::move(name), std::move(help), MetricType::kGauge, std::move(labelNames), {});
}

MetricFamily& Registry::histogram(std::string name, std::string help,
                                  std::vector<std::string> labelNames,
                                  std::vector<double> buckets) {
  return add(std::move(name), std::move(help), MetricType::kHistogram, std::move(labelNames),
             std::move(buckets));
}

std::string Registry::render() const {
  std::lock_guard lock(mutex_);
  std::string out;
  for (const auto& [name, family] : families_) family->render(out);
  return out;
}

std::vector<double> defaultDurationBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

}  // namespace attune::metrics
