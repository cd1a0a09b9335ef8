// Runs the racepred binary (RACEPRED_BINARY) in a shell for end-to-end tests: exit code (or the
// signal that ended it), standard output and standard error.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace racepred::testing {

struct CliResult {
  int code = -1;    // exit code; -1 when a signal ended the process
  int signal = 0;   // the signal, if any
  std::string out;  // standard output (unless redirected by the arguments)
  std::string err;
};

inline std::string racepred_binary() {
  const char* env = std::getenv("RACEPRED_BINARY");
  return env ? env : RACEPRED_BINARY;
}

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs shell text `command` with its stderr captured (and stdin from `stdin_file` if not empty).
inline CliResult run_shell(const std::string& command_text, const std::string& stdin_file = "") {
  static int counter = 0;
  const std::filesystem::path err =
      std::filesystem::temp_directory_path() /
      ("racepred_run_err_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::string command = command_text + " 2>" + shell_quote(err.string());
  if (!stdin_file.empty()) command += " <" + shell_quote(stdin_file);
  CliResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.out.append(buffer, n);
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) {
    r.code = WEXITSTATUS(status);
    // The shell reports a signal-killed child as 128 + signal.
    if (r.code > 128) r.signal = r.code - 128;
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  std::ifstream e(err);
  r.err.assign(std::istreambuf_iterator<char>(e), {});
  std::filesystem::remove(err);
  return r;
}

// `args` is shell text (quote paths with shell_quote); `stdin_file` is redirected if not empty.
inline CliResult run_racepred(const std::string& args, const std::string& stdin_file = "") {
  return run_shell(shell_quote(racepred_binary()) + " " + args, stdin_file);
}

// A file under the temporary directory holding `text`, removed by the destructor.
class TempFile {
 public:
  explicit TempFile(const std::string& text, const std::string& suffix = ".std") {
    static int counter = 0;
    path_ =
        (std::filesystem::temp_directory_path() /
         ("racepred_tmp_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix))
            .string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }
  std::string quoted() const { return shell_quote(path_); }

 private:
  std::string path_;
};

}  // namespace racepred::testing
