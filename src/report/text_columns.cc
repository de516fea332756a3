#include "report/text_columns.h"

#include <algorithm>

namespace attune::report {

std::string alignedColumns(const std::vector<TextRow>& rows, std::span<const ColumnAlign> align) {
  std::vector<std::size_t> width;
  for (const TextRow& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const TextRow& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "  ";
      const std::string pad(width[i] - row[i].size(), ' ');
      const bool right =
          !align.empty() && align[std::min(i, align.size() - 1)] == ColumnAlign::kRight;
      line += right ? pad + row[i] : row[i] + pad;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace attune::report
