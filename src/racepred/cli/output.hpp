// Where a command's output goes: standard output or -o FILE, and every write checked.
// A regular file (or a new one) is written atomically: into a temporary file next to it (next
// to the file a symbolic link points to), renamed over it on success with the old file's mode;
// devices and FIFOs are written directly. An output that is one of the command's inputs is
// refused. The temporary file is removed on failure and on SIGINT/SIGTERM.
#pragma once

#include <fstream>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace racepred::cli {

// The report could not be written (disk full, closed pipe, …). Exit code 2. `quiet`: nothing
// to print (standard output is a closed pipe: its reader has gone, as `| head` does).
class OutputError : public std::runtime_error {
 public:
  explicit OutputError(const std::string& message, bool quiet = false)
      : std::runtime_error(message), quiet_(quiet) {}
  bool quiet() const { return quiet_; }

 private:
  bool quiet_;
};

// The file an output is written through: the rules above, for writers that take a path.
class OutputFile {
 public:
  // `path` empty or "-": standard output (path() is then "-"). Throws UsageError when `path`
  // is one of `inputs` (the same file, by device and inode) and OutputError when the temporary
  // file cannot be created.
  OutputFile(std::string path, const std::vector<std::string>& inputs = {});
  ~OutputFile();  // removes the temporary file unless commit() succeeded
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Where the writer writes: the temporary file, the device or FIFO itself, or "-".
  const std::string& path() const { return write_path_; }
  bool to_stdout() const { return path_.empty(); }
  // Renames the temporary file into place (nothing to do for a device or standard output).
  void commit();
  // Removes the temporary file: the destination is left untouched.
  void discard();

 private:
  std::string path_;        // as given; empty for standard output
  std::string write_path_;  // where the bytes go
  std::string target_;      // the file renamed over (symbolic links followed)
  bool temporary_ = false;
};

// Refuses (UsageError) an output path that names one of the inputs. Empty and "-" never match.
void check_not_an_input(const std::string& output, const std::vector<std::string>& inputs);

class ReportOutput {
 public:
  // `path` empty or "-": standard output. Otherwise the file is created lazily, at the first
  // call to stream(), so that a usage error leaves nothing behind.
  explicit ReportOutput(std::string path, std::vector<std::string> inputs = {});
  ~ReportOutput();
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
  std::vector<std::string> inputs_;
  std::unique_ptr<OutputFile> file_;
  std::unique_ptr<std::ofstream> stream_;
  bool committed_ = false;
};

}  // namespace racepred::cli
