#include "api/yaml/yaml_stream.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <sstream>

namespace attune::api::internal {
namespace {

// Ignores every event except where documents start; flags a document that starts where the
// previous one did (the parser made no progress).
class ProgressCheck final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    stuck_ = seen_ && mark.pos == last_.pos;
    seen_ = true;
    last_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  bool stuck() const { return stuck_; }
  const YAML::Mark& last() const { return last_; }

 private:
  bool seen_ = false;
  bool stuck_ = false;
  YAML::Mark last_;
};

// The line and column (0-based, as in yaml-cpp marks) of byte offset `pos` in `text`.
YAML::Mark markAt(const std::string& text, int pos) {
  YAML::Mark mark;
  mark.pos = pos;
  const auto end = text.begin() + std::clamp<std::ptrdiff_t>(pos, 0, std::ssize(text));
  mark.line = static_cast<int>(std::count(text.begin(), end, '\n'));
  const auto lineStart = std::find(std::make_reverse_iterator(end), text.rend(), '\n').base();
  mark.column = static_cast<int>(end - lineStart);
  return mark;
}

}  // namespace

std::vector<YAML::Node> loadDocuments(const std::string& text) {
  {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    ProgressCheck check;
    while (parser.HandleNextDocument(check)) {
      if (check.stuck()) {
        throw YAML::ParserException(markAt(text, check.last().pos),
                                    "unexpected content; expected the start of a document");
      }
    }
  }
  return YAML::LoadAll(text);
}

}  // namespace attune::api::internal
