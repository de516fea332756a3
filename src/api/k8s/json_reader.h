// Internal to api/k8s: the one generic walker over simdjson On Demand values that every
// decoder uses. Not a public header (it exposes simdjson, a private dependency).
//
// A decoder for a type T is an overload `Status readJson(JsonValue& v, T& out)` in namespace
// attune::api (found by argument-dependent lookup from the templates below). Struct decoders
// call forEachField with a lambda that dispatches on the key, reading the fields they know;
// fields they ignore are skipped by simdjson without being parsed. Error paths are built only
// on failure: each level prepends its key or [index] with Error::under.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/k8s/meta.h"
#include "core/error.h"

namespace attune::api {

using JsonValue = simdjson::ondemand::value;
using Status = Result<void>;

// A non-owning reference to a callable; keeps the walking helpers out of templates. The
// callable must outlive the call it is passed to (a lambda argument does).
template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): passed as a lambda argument.
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

// Calls fn(key, value) for each field of object `v` whose value is not null, in document order.
// `key` is unescaped and valid until the document is destroyed. A field fn does not consume is
// skipped. An error from fn is returned with `key` prepended to its field path.
using FieldFn = FunctionRef<Status(std::string_view key, JsonValue& value)>;
Status forEachField(JsonValue& v, FieldFn fn);

// Calls fn(element) for each element of array `v`; an error gets "[index]" prepended.
using ElementFn = FunctionRef<Status(JsonValue& element)>;
Status forEachElement(JsonValue& v, ElementFn fn);

// Primitive readers; each fails with kInvalidArgument (empty field path) on a type mismatch.
Status readJson(JsonValue& v, std::string& out);
Status readJson(JsonValue& v, bool& out);
Status readJson(JsonValue& v, std::int64_t& out);
Status readJson(JsonValue& v, std::int32_t& out);
Status readJson(JsonValue& v, Time& out);      // RFC 3339 string
Status readJson(JsonValue& v, Quantity& out);  // string (or bare number) via Quantity::parse
Status readJson(JsonValue& v, StringMap& out);
Status readJson(JsonValue& v, ResourceList& out);
// The raw JSON text of an object or array value (trailing whitespace trimmed).
Status readRawJson(JsonValue& v, std::string& out);

template <typename T>
Status readJson(JsonValue& v, std::optional<T>& out) {
  return readJson(v, out.emplace());
}

template <typename T>
Status readJson(JsonValue& v, std::vector<T>& out) {
  return forEachElement(v, [&out](JsonValue& e) { return readJson(e, out.emplace_back()); });
}

// Parses `json` (copied into a padded buffer) and calls fn on its root, which must be an object
// or an array; fails on malformed JSON and on content after the root value.
Status decodeDocument(std::string_view json, FunctionRef<Status(JsonValue& root)> fn);

// Decodes a whole document into a T with its readJson overload.
template <typename T>
Result<T> decodeAs(std::string_view json) {
  T out;
  Status st = decodeDocument(json, [&out](JsonValue& root) { return readJson(root, out); });
  if (!st) return std::unexpected(std::move(st.error()));
  return out;
}

// The concatenation of `parts`. (GCC 12 at -O2 warns falsely, -Wrestrict, on
// `"literal" + std::string`; building messages with this avoids that pattern.)
std::string concat(std::initializer_list<std::string_view> parts);

// An Error for a simdjson failure, with no field path.
Error jsonError(simdjson::error_code code);

}  // namespace attune::api
