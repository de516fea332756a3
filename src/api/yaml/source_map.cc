#include "api/yaml/source_map.h"

namespace attune::api {

void SourceMap::record(std::string path, SourcePosition position) {
  positions_.insert_or_assign(std::move(path), position);
}

SourcePosition SourceMap::find(std::string_view path) const {
  while (!path.empty()) {
    if (auto it = positions_.find(path); it != positions_.end()) return it->second;
    const auto cut = path.find_last_of(".[");
    if (cut == std::string_view::npos) break;
    path = path.substr(0, cut);
  }
  return {};
}

}  // namespace attune::api
