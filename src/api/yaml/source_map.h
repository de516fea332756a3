// Where the fields of a YAML or JSON document were written, and diagnostics that point there.
// Policy and scenario files share these (api/policy, sim/scenario).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "core/error.h"

namespace attune::api {

// 1-based source position; 0 means unknown.
struct SourcePosition {
  int line = 0;
  int column = 0;
};

// One error or warning about a document. `error.field` is the field path
// ("spec.updateStrategy.cooldown"); line and column are 1-based, 0 when unknown.
struct SourceDiagnostic {
  Error error;
  int line = 0;
  int column = 0;
  bool operator==(const SourceDiagnostic&) const = default;
};

// Where each field of a decoded document was written, keyed by field path. Positions are not
// part of a document's value: any two SourceMaps compare equal.
class SourceMap {
 public:
  void record(std::string path, SourcePosition position);
  // The position of `path`, else of its nearest recorded ancestor ("a.b[2].c" → "a.b[2]" →
  // "a.b" → "a"), else {0, 0}.
  SourcePosition find(std::string_view path) const;
  friend bool operator==(const SourceMap&, const SourceMap&) { return true; }

 private:
  std::map<std::string, SourcePosition, std::less<>> positions_;
};

}  // namespace attune::api
