// The column layout of the plain-text reports (internal to src/report/).
#pragma once

#include <span>
#include <string>
#include <vector>

namespace attune::report {

using TextRow = std::vector<std::string>;

// Which side of its column a cell keeps to: text to the left, numbers to the right.
enum class ColumnAlign { kLeft, kRight };

// The rows as lines of columns two spaces apart, each column as wide as its widest cell and each
// cell padded on the side `align` gives its column; column i takes align[i], or the last entry
// of `align` past its end (an empty `align` means all left). Rows may have fewer cells than
// others. Every line ends with "\n" and has no trailing blanks.
std::string alignedColumns(const std::vector<TextRow>& rows, std::span<const ColumnAlign> align);

}  // namespace attune::report
