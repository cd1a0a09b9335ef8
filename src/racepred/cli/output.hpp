// Where a command's report goes: standard output or -o FILE, written atomically (a temporary
// file next to FILE, renamed on success), and every write checked.
#pragma once

#include <fstream>
#include <iosfwd>
#include <memory>
#include <string>

#include "racepred/cli/options.hpp"

namespace racepred::cli {

// The report could not be written (disk full, closed pipe, …). Exit code 2.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ReportOutput {
 public:
  // `path` empty or "-": standard output. Otherwise the temporary file is created lazily, at
  // the first call to stream(), so that a usage error leaves nothing behind.
  explicit ReportOutput(std::string path);
  ~ReportOutput();  // removes the temporary file unless commit() succeeded
  ReportOutput(const ReportOutput&) = delete;
  ReportOutput& operator=(const ReportOutput&) = delete;

  std::ostream& stream();
  // Flushes, checks that every byte was written, renames the temporary file into place.
  // Throws OutputError naming the destination and the system's reason.
  void commit();
  // Drops what was written so far (a failed run): the destination is left untouched.
  void discard();
  std::string destination() const;

 private:
  std::string path_;
  std::string temp_;
  std::unique_ptr<std::ofstream> file_;
  bool committed_ = false;
};

}  // namespace racepred::cli
