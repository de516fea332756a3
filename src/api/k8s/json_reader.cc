#include "api/k8s/json_reader.h"

#include <limits>
#include <memory>

namespace attune::api {
namespace {

namespace od = simdjson::ondemand;

// Documents up to this size are parsed with a per-thread parser that keeps its buffers; larger
// ones (big LISTs) get a parser of their own so that its memory is released afterwards.
constexpr std::size_t kRetainedParserCapacity = std::size_t{1} << 20;

std::unexpected<Error> typeError(simdjson::error_code code, std::string_view expected) {
  if (code == simdjson::INCORRECT_TYPE) {
    return fail(ErrorCode::kInvalidArgument, concat({"expected ", expected}));
  }
  return std::unexpected(jsonError(code));
}

std::string_view trimRight(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::string concat(std::initializer_list<std::string_view> parts) {
  std::size_t size = 0;
  for (std::string_view p : parts) size += p.size();
  std::string out;
  out.reserve(size);
  for (std::string_view p : parts) out.append(p);
  return out;
}

Error jsonError(simdjson::error_code code) {
  return Error{
      ErrorCode::kInvalidArgument, concat({"invalid JSON: ", simdjson::error_message(code)}), {}};
}

Status forEachField(JsonValue& v, FieldFn fn) {
  od::object object;
  if (auto err = v.get_object().get(object)) return typeError(err, "an object");
  for (auto field : object) {
    std::string_view key;
    if (auto err = field.unescaped_key().get(key)) return std::unexpected(jsonError(err));
    JsonValue value;
    if (auto err = field.value().get(value)) return std::unexpected(jsonError(err));
    od::json_type type;
    if (auto err = value.type().get(type)) return std::unexpected(jsonError(err).under(key));
    if (type == od::json_type::null) continue;
    if (Status st = fn(key, value); !st) return std::unexpected(st.error().under(key));
  }
  return {};
}

Status forEachElement(JsonValue& v, ElementFn fn) {
  od::array array;
  if (auto err = v.get_array().get(array)) return typeError(err, "an array");
  std::size_t index = 0;
  for (auto element : array) {
    JsonValue value;
    if (auto err = element.get(value)) return std::unexpected(jsonError(err));
    if (Status st = fn(value); !st) {
      return std::unexpected(st.error().under(concat({"[", std::to_string(index), "]"})));
    }
    ++index;
  }
  return {};
}

Status readJson(JsonValue& v, std::string& out) {
  std::string_view s;
  if (auto err = v.get_string().get(s)) return typeError(err, "a string");
  out.assign(s);
  return {};
}

Status readJson(JsonValue& v, bool& out) {
  if (auto err = v.get_bool().get(out)) return typeError(err, "a boolean");
  return {};
}

Status readJson(JsonValue& v, std::int64_t& out) {
  if (auto err = v.get_int64().get(out)) return typeError(err, "an integer");
  return {};
}

Status readJson(JsonValue& v, std::int32_t& out) {
  std::int64_t wide = 0;
  if (auto err = v.get_int64().get(wide)) return typeError(err, "an integer");
  if (wide < std::numeric_limits<std::int32_t>::min() ||
      wide > std::numeric_limits<std::int32_t>::max()) {
    return fail(ErrorCode::kOutOfRange, std::to_string(wide) + " is out of the int32 range");
  }
  out = static_cast<std::int32_t>(wide);
  return {};
}

Status readJson(JsonValue& v, Time& out) {
  std::string_view s;
  if (auto err = v.get_string().get(s)) return typeError(err, "an RFC 3339 timestamp string");
  Result<Time> t = parseRfc3339(s);
  if (!t) return std::unexpected(Error{t.error().code, t.error().message, {}});
  out = *t;
  return {};
}

Status readJson(JsonValue& v, Quantity& out) {
  std::string_view text;
  auto err = v.get_string().get(text);
  if (err == simdjson::INCORRECT_TYPE) {
    // The API server accepts a bare JSON number for a quantity.
    od::json_type type;
    if (v.type().get(type) == simdjson::SUCCESS && type == od::json_type::number) {
      text = trimRight(v.raw_json_token());
      err = simdjson::SUCCESS;
    }
  }
  if (err) return typeError(err, "a quantity string");
  Result<Quantity> q = Quantity::parse(text);
  if (!q) return std::unexpected(Error{q.error().code, q.error().message, {}});
  out = *q;
  return {};
}

Status readJson(JsonValue& v, StringMap& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    std::string_view s;
    if (auto err = value.get_string().get(s)) return typeError(err, "a string");
    // Go writes map keys sorted, so the hint at the end is usually exact.
    out.emplace_hint(out.end(), key, s);
    return {};
  });
}

Status readJson(JsonValue& v, ResourceList& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "cpu") return readJson(value, out.cpu);
    if (key == "memory") return readJson(value, out.memory);
    Quantity q;
    if (Status st = readJson(value, q); !st) return st;
    out.other.insert_or_assign(std::string(key), q);
    return {};
  });
}

Status readRawJson(JsonValue& v, std::string& out) {
  od::json_type type;
  if (auto err = v.type().get(type)) return std::unexpected(jsonError(err));
  std::string_view raw;
  simdjson::error_code err = simdjson::SUCCESS;
  if (type == od::json_type::object) {
    od::object object;
    err = v.get_object().get(object);
    if (!err) err = object.raw_json().get(raw);
  } else if (type == od::json_type::array) {
    od::array array;
    err = v.get_array().get(array);
    if (!err) err = array.raw_json().get(raw);
  } else {
    raw = v.raw_json_token();
  }
  if (err) return std::unexpected(jsonError(err));
  out.assign(trimRight(raw));
  return {};
}

Status decodeDocument(std::string_view json, FunctionRef<Status(JsonValue& root)> fn) {
  thread_local od::parser retained;
  thread_local bool retainedInUse = false;
  std::unique_ptr<od::parser> own;
  od::parser* parser = &retained;
  if (json.size() > kRetainedParserCapacity || retainedInUse) {
    own = std::make_unique<od::parser>();
    parser = own.get();
  }
  struct InUse {
    bool* flag;
    ~InUse() {
      if (flag) *flag = false;
    }
  } inUse{parser == &retained ? &retainedInUse : nullptr};
  if (inUse.flag) retainedInUse = true;

  simdjson::padded_string padded(json);
  od::document doc;
  if (auto err = parser->iterate(padded).get(doc)) return std::unexpected(jsonError(err));
  JsonValue root;
  if (auto err = doc.get_value().get(root)) {
    if (err == simdjson::SCALAR_DOCUMENT_AS_VALUE) {
      return fail(ErrorCode::kInvalidArgument, "expected a JSON object");
    }
    return std::unexpected(jsonError(err));
  }
  if (Status st = fn(root); !st) return st;
  const char* location = nullptr;
  if (doc.current_location().get(location) != simdjson::OUT_OF_BOUNDS) {
    return fail(ErrorCode::kInvalidArgument, "invalid JSON: content after the document");
  }
  return {};
}

}  // namespace attune::api
