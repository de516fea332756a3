#include "metrics/prometheus/query_response.h"

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <array>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>

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

Status readSeriesFields(od::object& object, PromSeries& series) {
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

Status readSeries(od::value& v, PromSeries& series) {
  od::object object;
  if (auto code = v.get_object().get(object)) return malformed("result item", code);
  return readSeriesFields(object, series);
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

namespace {

// A decoded envelope, before the checks of finishResponse().
struct Envelope {
  QueryResponse response;
  bool hasStatus = false;
};

Result<Envelope> readEnvelope(std::string& body, ScalarResults scalars) {
  const size_t size = body.size();
  body.resize(size + simdjson::SIMDJSON_PADDING);  // zero bytes the parser may read past the end
  od::parser parser;
  od::document doc;
  auto code = parser.iterate(body.data(), size, body.size()).get(doc);
  if (code) {
    body.resize(size);
    return malformed("not JSON", code);
  }
  Envelope envelope;
  QueryResponse& out = envelope.response;
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
        envelope.hasStatus = true;
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
  return envelope;
}

// The checks every decoded response passes, whole or streamed.
Result<QueryResponse> finishResponse(Envelope envelope) {
  QueryResponse& out = envelope.response;
  if (!envelope.hasStatus) return malformed("no status");
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
  return std::move(out);
}

}  // namespace

Result<QueryResponse> decodeQueryResponse(std::string& body, ScalarResults scalars) {
  auto envelope = readEnvelope(body, scalars);
  if (!envelope) return std::unexpected(envelope.error());
  return finishResponse(std::move(*envelope));
}

// The position of a streamed body in its JSON, as much as QueryResponseStream needs: the
// containers of the first two levels and their keys, data.resultType, and whether the bytes are
// inside data.result, where series are cut out one by one.
struct QueryResponseStream::Scanner {
  enum class Capture { kNone, kKey, kResultType };
  static constexpr std::size_t kMaxCaptured = 16;  // longer strings match no name looked for

  od::parser parser;  // decodes one series at a time
  int depth = 0;      // containers open
  bool inString = false;
  bool escaped = false;
  bool broken = false;      // more closers than openers: no series is cut out from then on
  bool keptResult = false;  // a data.result was left in the skeleton
  Capture capture = Capture::kNone;
  std::string captured;
  std::array<bool, 3> object{};    // [d]: the container at depth d (1, 2) is an object
  std::array<bool, 3> keyNext{};   // [d]: the next string at depth d is a key
  std::array<std::string, 3> key;  // [d]: the last key read at depth d
  bool inData = false;             // the container at depth 2 is the root's "data" object
  std::string resultType;          // its "resultType" so far
  bool inResult = false;           // in data.result, series by series (depth >= 3)
  bool separated = true;           // in data.result: a series may start here
  bool afterComma = false;         // in data.result: the last separator was a comma

  // The depth of the container open now when it is the root (1) or a child of it (2), whose
  // keys are followed; nullopt deeper or outside.
  std::optional<std::size_t> followedDepth() const {
    if (depth == 1 || depth == 2) return static_cast<std::size_t>(depth);
    return std::nullopt;
  }

  // A byte in a string: true when it is the quote that closes it.
  bool stringByte(char c) {
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      inString = false;
      return true;
    }
    return false;
  }

  // A byte outside data.result's series (kept in the skeleton).
  void skeletonByte(char c) {
    if (inString) {
      if (stringByte(c)) {
        endCapture();
        return;
      }
      if (capture != Capture::kNone && captured.size() <= kMaxCaptured) captured += c;
      return;
    }
    switch (c) {
      case '"':
        inString = true;
        captured.clear();
        capture = Capture::kNone;
        if (const auto at = followedDepth()) {
          if (object[*at] && keyNext[*at]) {
            capture = Capture::kKey;
            keyNext[*at] = false;
          } else if (*at == 2 && inData && key[2] == "resultType") {
            capture = Capture::kResultType;
          }
        }
        return;
      case ',':
        if (const auto at = followedDepth(); at && object[*at]) keyNext[*at] = true;
        return;
      case '{':
      case '[':
        open(c);
        return;
      case '}':
      case ']':
        if (--depth < 0) broken = true;
        return;
      default:
        return;
    }
  }

  void open(char c) {
    const int d = ++depth;
    if (const auto at = followedDepth()) {
      object[*at] = c == '{';
      keyNext[*at] = c == '{';
      key[*at].clear();
    }
    if (d == 2) {
      inData = c == '{' && object[1] && key[1] == "data";
      if (inData) resultType.clear();
    }
    if (d == 3 && inData && key[2] == "result") {
      // Series come out in body order: once a result stays in the skeleton (decoded at the
      // end), no later one is cut out.
      if (c == '[' && !broken && !keptResult &&
          (resultType == "matrix" || resultType == "vector")) {
        inResult = true;
        separated = true;
        afterComma = false;
      } else {
        keptResult = true;
      }
    }
  }

  // One byte of a series: its strings, escapes and containers. True when it closes the series.
  bool seriesByte(char c) {
    if (inString) {
      stringByte(c);
      return false;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      return --depth == 3;
    }
    return false;
  }

  // The bytes of a series from `i`, as seriesByte() one by one would read them: returns the
  // position after the byte that closed it (`ended` set), or the end of `bytes`. With SSE2 a
  // block of 16 bytes is read at once and only its quotes, backslashes and brackets are looked
  // at: the samples' digits, most of a usage read, are skipped.
  std::size_t scanSeries(std::string_view bytes, std::size_t i, bool& ended) {
    const char* const p = bytes.data();
    const std::size_t n = bytes.size();
    while (i < n) {
#if defined(__SSE2__)
      if (!escaped && n - i >= 16) {
        const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        const auto is = [&](char c) { return _mm_cmpeq_epi8(block, _mm_set1_epi8(c)); };
        auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_or_si128(is('"'), is('\\')), _mm_or_si128(is('{'), is('['))),
            _mm_or_si128(is('}'), is(']')))));
        const std::size_t base = i;
        i += 16;
        while (mask != 0) {
          const auto bit = static_cast<unsigned>(__builtin_ctz(mask));
          mask &= mask - 1;
          if (seriesByte(p[base + bit])) {
            ended = true;
            return base + bit + 1;
          }
          if (escaped) {           // the byte after a backslash is taken as it is
            if (bit == 15) break;  // the next block's first byte: left to seriesByte()
            escaped = false;
            mask &= ~(1U << (bit + 1));
          }
        }
        continue;
      }
#endif
      if (seriesByte(p[i++])) {
        ended = true;
        return i;
      }
    }
    return i;
  }

  void endCapture() {
    if (captured.size() > kMaxCaptured) captured.clear();
    if (const auto at = followedDepth(); at && capture == Capture::kKey) key[*at] = captured;
    if (capture == Capture::kResultType) resultType = captured;
    capture = Capture::kNone;
  }
};

QueryResponseStream::QueryResponseStream(ScalarResults scalars)
    : scalars_(scalars), scanner_(std::make_unique<Scanner>()) {}

QueryResponseStream::~QueryResponseStream() = default;

bool QueryResponseStream::feed(std::string_view bytes) {
  if (error_) return false;
  constexpr std::size_t kHead = 200;
  if (head_.size() < kHead) head_.append(bytes.substr(0, kHead - head_.size()));
  bytes_ += bytes.size();
  Scanner& s = *scanner_;
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (!s.inResult) {  // the run of skeleton bytes up to the start of data.result's series
      const std::size_t from = i;
      while (i < bytes.size() && !s.inResult) s.skeletonByte(bytes[i++]);
      skeleton_.append(bytes.substr(from, i - from));
      continue;
    }
    if (s.depth == 3) {  // between two series of data.result
      const char c = bytes[i++];
      if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
      if (c == ',' && !s.separated) {
        s.separated = s.afterComma = true;
      } else if (c == ']' && !s.afterComma) {
        s.inResult = false;
        s.depth = 2;
        skeleton_ += ']';
      } else if (c == '{' && s.separated) {
        element_.assign(1, '{');
        s.depth = 4;
        s.separated = s.afterComma = false;
      } else if (c == ',' || c == ']' || c == '{') {
        error_ = malformed("not JSON", simdjson::TAPE_ERROR).error();
      } else {
        error_ = malformed("result item", simdjson::INCORRECT_TYPE).error();
      }
      if (error_) return false;
      continue;
    }
    // In a series: the bytes up to the one that closes it.
    const std::size_t from = i;
    bool ended = false;
    i = s.scanSeries(bytes, i, ended);
    element_.append(bytes.substr(from, i - from));
    if (ended && !decodeElement()) return false;
  }
  return true;
}

bool QueryResponseStream::decodeElement() {
  const std::size_t size = element_.size();
  element_.resize(size + simdjson::SIMDJSON_PADDING);
  od::document doc;
  od::object object;
  PromSeries series;
  Status status;
  if (auto code = scanner_->parser.iterate(element_.data(), size, element_.size()).get(doc)) {
    status = malformed("not JSON", code);
  } else if (auto objectCode = doc.get_object().get(object)) {
    status = malformed("result item", objectCode);
  } else {
    status = readSeriesFields(object, series);
  }
  element_.clear();
  if (!status) {
    error_ = status.error();
    return false;
  }
  if (!series.points.empty()) series_.push_back(std::move(series));
  return true;
}

Result<QueryResponse> QueryResponseStream::finish() {
  if (error_) return std::unexpected(*error_);
  if (scanner_->inResult) return malformed("not JSON", simdjson::INCOMPLETE_ARRAY_OR_OBJECT);
  auto envelope = readEnvelope(skeleton_, scalars_);
  if (!envelope) return std::unexpected(envelope.error());
  // The series cut out came first: data.result's place in the body, before any other.
  std::vector<PromSeries>& rest = envelope->response.series;
  rest.insert(rest.begin(), std::make_move_iterator(series_.begin()),
              std::make_move_iterator(series_.end()));
  series_.clear();
  auto out = finishResponse(std::move(*envelope));
  if (out) out->bytes = bytes_;
  return out;
}

}  // namespace attune::metrics
