#include "metrics/prometheus/query_response.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>

namespace attune::metrics {
namespace {

namespace od = simdjson::ondemand;
using Status = Result<void>;

std::unexpected<Error> malformed(std::string_view what, simdjson::error_code code) {
  return fail(ErrorCode::kInvalidArgument, "malformed Prometheus response: " + std::string(what) +
                                               " (" + simdjson::error_message(code) + ")");
}

std::unexpected<Error> malformed(std::string_view what) {
  return fail(ErrorCode::kInvalidArgument, "malformed Prometheus response: " + std::string(what));
}

Status readString(od::value& v, std::string& out, std::string_view what) {
  std::string_view s;
  if (auto code = v.get_string().get(s)) return malformed(what, code);
  out.assign(s);
  return {};
}

// [t, "v"]: appends the point unless the value is NaN or infinite.
Status readSample(od::value& v, std::vector<Point>& points) {
  od::array pair;
  if (auto code = v.get_array().get(pair)) return malformed("sample is not an array", code);
  double seconds = 0;
  std::string_view text;
  int index = 0;
  for (auto element : pair) {
    simdjson::error_code code = simdjson::SUCCESS;
    if (index == 0) {
      code = element.get_double().get(seconds);
    } else if (index == 1) {
      code = element.get_string().get(text);
    }
    if (code) return malformed("sample is not [time, \"value\"]", code);
    ++index;
  }
  if (index != 2) return malformed("sample is not [time, \"value\"]");
  // Time counts nanoseconds in 64 bits: up to 9223372036 s either side of the epoch (years
  // 1677 to 2262).
  constexpr double kMaxSeconds = 9'223'372'035.0;
  if (!(std::fabs(seconds) <= kMaxSeconds)) return malformed("sample time out of range");
  auto value = parseSampleValue(text);
  if (!value) return std::unexpected(value.error());
  if (*value) {
    const auto ms = std::chrono::milliseconds(std::llround(seconds * 1000.0));
    points.push_back(Point{Time(std::chrono::duration_cast<Duration>(ms)), **value});
  }
  return {};
}

Status readLabels(od::value& v, Labels& labels) {
  od::object object;
  if (auto code = v.get_object().get(object)) return malformed("metric is not an object", code);
  for (auto field : object) {
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return malformed("label name", code);
    od::value value;
    if (auto code = field.value().get(value)) return malformed("label value", code);
    std::string text;
    if (auto status = readString(value, text, "label value is not a string"); !status) {
      return status;
    }
    labels.emplace(std::string(key), std::move(text));
  }
  return {};
}

Status readSeries(od::value& v, PromSeries& series) {
  od::object object;
  if (auto code = v.get_object().get(object)) return malformed("result item", code);
  for (auto field : object) {
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return malformed("result item key", code);
    od::value value;
    if (auto code = field.value().get(value)) return malformed("result item value", code);
    Status status;
    if (key == "metric") {
      status = readLabels(value, series.labels);
    } else if (key == "value") {
      status = readSample(value, series.points);
    } else if (key == "values") {
      od::array samples;
      if (auto code = value.get_array().get(samples)) return malformed("values", code);
      // Sized once: a day of samples pushed one by one would leave up to twice their size
      // reserved, kept as long as the series is (count_elements() rewinds the array).
      std::size_t count = 0;
      if (auto code = samples.count_elements().get(count)) return malformed("values", code);
      series.points.reserve(series.points.size() + count);
      for (auto sample : samples) {
        od::value s;
        if (auto code = sample.get(s)) return malformed("values", code);
        if (status = readSample(s, series.points); !status) break;
      }
    }
    if (!status) return status;
  }
  return {};
}

Status readData(od::value& v, QueryResponse& out, ScalarResults scalars) {
  od::object object;
  if (auto code = v.get_object().get(object)) return malformed("data is not an object", code);
  for (auto field : object) {
    std::string_view key;
    if (auto code = field.unescaped_key().get(key)) return malformed("data key", code);
    od::value value;
    if (auto code = field.value().get(value)) return malformed("data value", code);
    if (key == "resultType") {
      if (auto status = readString(value, out.resultType, "resultType"); !status) return status;
      const bool scalar = out.resultType == "scalar" && scalars == ScalarResults::kAccepted;
      if (out.resultType != "vector" && out.resultType != "matrix" && !scalar) {
        return malformed("unsupported resultType \"" + out.resultType + "\"");
      }
    } else if (key == "result" && out.resultType == "scalar") {
      PromSeries series;
      if (auto status = readSample(value, series.points); !status) return status;
      if (!series.points.empty()) out.series.push_back(std::move(series));
    } else if (key == "result") {
      od::array items;
      if (auto code = value.get_array().get(items)) return malformed("result", code);
      for (auto item : items) {
        od::value itemValue;
        if (auto code = item.get(itemValue)) return malformed("result", code);
        PromSeries series;
        if (auto status = readSeries(itemValue, series); !status) return status;
        if (!series.points.empty()) out.series.push_back(std::move(series));
      }
    }
  }
  return {};
}

Status readWarnings(od::value& v, std::vector<std::string>& warnings) {
  od::array items;
  if (auto code = v.get_array().get(items)) return malformed("warnings", code);
  for (auto item : items) {
    od::value value;
    if (auto code = item.get(value)) return malformed("warnings", code);
    if (auto status = readString(value, warnings.emplace_back(), "warning"); !status) {
      return status;
    }
  }
  return {};
}

}  // namespace

std::string_view PromSeries::label(std::string_view name) const {
  auto it = labels.find(name);
  return it == labels.end() ? std::string_view() : std::string_view(it->second);
}

Result<std::optional<double>> parseSampleValue(std::string_view text) {
  std::string_view digits = text;
  if (digits.starts_with('+')) digits.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return fail(ErrorCode::kInvalidArgument, "malformed Prometheus response: sample value \"" +
                                                 std::string(text) + "\" is not a number");
  }
  if (!std::isfinite(value)) return std::optional<double>();
  return std::optional<double>(value);
}

Result<QueryResponse> decodeQueryResponse(std::string& body, ScalarResults scalars) {
  const size_t size = body.size();
  body.resize(size + simdjson::SIMDJSON_PADDING);  // zero bytes the parser may read past the end
  od::parser parser;
  od::document doc;
  auto code = parser.iterate(body.data(), size, body.size()).get(doc);
  if (code) {
    body.resize(size);
    return malformed("not JSON", code);
  }
  QueryResponse out;
  bool hasStatus = false;
  od::object root;
  Status status;
  if (auto rootCode = doc.get_object().get(root)) {
    status = malformed("not a JSON object", rootCode);
  } else {
    for (auto field : root) {
      std::string_view key;
      od::value value;
      if (auto keyCode = field.unescaped_key().get(key)) {
        status = malformed("key", keyCode);
      } else if (auto valueCode = field.value().get(value)) {
        status = malformed("value", valueCode);
      } else if (key == "status") {
        std::string text;
        status = readString(value, text, "status");
        out.success = text == "success";
        hasStatus = true;
      } else if (key == "errorType") {
        status = readString(value, out.errorType, "errorType");
      } else if (key == "error") {
        status = readString(value, out.error, "error");
      } else if (key == "data") {
        status = readData(value, out, scalars);
      } else if (key == "warnings") {
        status = readWarnings(value, out.warnings);
      }
      if (!status) break;
    }
  }
  body.resize(size);
  if (!status) return std::unexpected(status.error());
  if (!hasStatus) return malformed("no status");
  if (out.success && out.resultType.empty()) return malformed("success without data.resultType");
  // A response that is not a success carries no result, whatever its data says.
  if (!out.success) {
    out.resultType.clear();
    out.series.clear();
  }
  // One sample per series of a vector (or scalar), in whatever order the fields came: "values"
  // read before "resultType", a series with both "value" and "values", or "data" twice.
  if (out.resultType == "vector" || out.resultType == "scalar") {
    for (const PromSeries& series : out.series) {
      if (series.points.size() > 1) {
        return malformed("a " + out.resultType + " series with more than one sample");
      }
    }
  }
  return out;
}

}  // namespace attune::metrics
