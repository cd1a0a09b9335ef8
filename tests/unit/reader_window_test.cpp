// A mapped STD file larger than the reader's 16 MiB window is parsed window by window (pages
// dropped behind): the events, ids, lines and error positions must be those of one pass.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "racepred/io/reader.hpp"

namespace racepred {
namespace RACEPRED_TEST_FILE {

std::string big_trace(size_t min_bytes) {
  std::string text;
  for (size_t i = 0; text.size() < min_bytes; ++i) {
    text.append("T").append(std::to_string(i % 3)).append(i % 2 ? "|r(V" : "|w(V");
    text.append(std::to_string(i % 1000)).append(")|").append(std::to_string(i)).append("\n");
    if (i % 100000 == 0) text += "# a comment line\n";
  }
  return text;
}

TEST(ReaderWindows, MappedFileAcrossWindowsEqualsOnePass) {
  const std::string text = big_trace(40u << 20);
  const auto path = std::filesystem::temp_directory_path() /
                    ("racepred_reader_window_" + std::to_string(::getpid()) + ".std");
  std::ofstream(path, std::ios::binary) << text;
  const Trace from_file = load_trace(path.string());
  const Trace from_text = parse_trace(text);
  std::filesystem::remove(path);
  ASSERT_EQ(from_file.size(), from_text.size());
  EXPECT_EQ(from_file.events, from_text.events);
  EXPECT_EQ(from_file.ids, from_text.ids);
  EXPECT_EQ(from_file.lines, from_text.lines);
  EXPECT_EQ(from_file.symbols.locations.size(), from_text.symbols.locations.size());
}

TEST(ReaderWindows, ErrorPastTheFirstWindowNamesItsLine) {
  std::string text = big_trace(20u << 20);
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  text += "T1|wr(x)|9\n";
  const auto path = std::filesystem::temp_directory_path() /
                    ("racepred_reader_window_bad_" + std::to_string(::getpid()) + ".std");
  std::ofstream(path, std::ios::binary) << text;
  try {
    load_trace(path.string());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    std::string where = ":";
    where.append(std::to_string(lines + 1)).append(":4: error:");
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
}

}  // namespace RACEPRED_TEST_FILE
}  // namespace racepred
