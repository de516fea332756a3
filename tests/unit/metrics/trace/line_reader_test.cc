#include "metrics/trace/line_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/shared_dir.h"
#include "trace_testing.h"

namespace attune::metrics {
namespace {

using testing::dataDir;
using testing::freshDir;
using testing::writeFile;

std::vector<std::string> readAll(LineReader& lines) {
  std::vector<std::string> out;
  std::string line;
  while (true) {
    auto more = lines.next(line);
    EXPECT_TRUE(more.has_value()) << more.error().message;
    if (!more || !*more) return out;
    out.push_back(line);
  }
}

TEST(LineReaderTest, StripsLineEndingsAndKeepsALastLineWithoutNewline) {
  const auto path = writeFile(freshDir(), "a.csv", "one\r\ntwo\n\nthree");
  auto lines = LineReader::open(path);
  ASSERT_TRUE(lines.has_value());
  EXPECT_EQ(readAll(*lines), (std::vector<std::string>{"one", "two", "", "three"}));
  EXPECT_EQ(lines->lineNumber(), 4);
}

TEST(LineReaderTest, ReadsGzipLikePlainText) {
  auto lines = LineReader::open(dataDir() / "bitbrains/2.csv.gz");
  ASSERT_TRUE(lines.has_value());
  const auto all = readAll(*lines);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_TRUE(all[0].starts_with("Timestamp [ms];\tCPU cores;"));
  EXPECT_TRUE(all[1].starts_with("1372629804;\t1;\t2600.0;"));
}

TEST(LineReaderTest, ForEachLineSkipsBlankLinesAndStopsAtAnError) {
  const auto path = writeFile(freshDir(), "a.csv", "a\n \t\nb\nc\n");
  auto lines = LineReader::open(path);
  ASSERT_TRUE(lines.has_value());
  std::vector<std::string> seen;
  auto result = lines->forEachLine([&](std::string_view line) -> Result<void> {
    seen.emplace_back(line);
    if (line == "b") return lines->error("stop");
    return {};
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().message, path.string() + ":3: stop");
}

TEST(LineReaderTest, MissingFileIsNotFound) {
  auto lines = LineReader::open(freshDir() / "absent.csv");
  ASSERT_FALSE(lines.has_value());
  EXPECT_EQ(lines.error().code, ErrorCode::kNotFound);
}

TEST(LineReaderTest, TruncatedGzipIsAnError) {
  const std::string gz = attune::testing::readFile(dataDir() / "bitbrains/2.csv.gz");
  const auto path = writeFile(freshDir(), "2.csv.gz", gz.substr(0, gz.size() / 2));
  auto lines = LineReader::open(path);
  ASSERT_TRUE(lines.has_value());
  std::string line;
  Result<bool> more = true;
  while (more && *more) more = lines->next(line);
  ASSERT_FALSE(more.has_value());
  EXPECT_EQ(more.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(more.error().message.find("corrupt gzip data"), std::string::npos)
      << more.error().message;
}

}  // namespace
}  // namespace attune::metrics
