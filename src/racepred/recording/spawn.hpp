// Starting helper tools and the recorded program with an argument vector (posix_spawn), never
// through a shell: names with spaces, quotes or `$` reach the program as they are.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "racepred/trace/error.hpp"

namespace racepred::recording {

// A program could not be started (not found, not executable). The message names it.
class SpawnError : public InputError {
 public:
  using InputError::InputError;
};

// The executable that execvp would run for `name`: `name` itself when it holds a '/', else the
// first executable PATH entry; "" when there is none.
std::string find_program(const std::string& name);

struct SpawnOptions {
  std::vector<std::pair<std::string, std::string>> env;  // set (or replaced) in the child
  int stdin_fd = -1;                                     // -1: inherited
  int stdout_fd = -1;                                    // -1: inherited
  int stderr_fd = -1;                                    // -1: inherited (or quiet_stderr)
  bool quiet_stderr = false;                             // standard error to /dev/null
};

// Starts argv[0] (looked up on PATH) with `argv`. Throws SpawnError when it cannot be run.
pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Waits for `pid` (through EINTR) and returns its wait status.
int wait_for(pid_t pid);

struct Captured {
  std::string out;  // standard output
  int status = 0;   // wait status
};

// Runs `argv` with `input` on standard input (a private in-memory file) and standard error
// discarded, and returns what it wrote to standard output. Throws SpawnError when it cannot be
// run.
Captured run_capture(const std::vector<std::string>& argv, const std::string& input = "");

// A private temporary file holding `data`, positioned at its start: a memfd, or an unlinked
// mkstemp file (0600) where memfd_create is missing. Returns the descriptor (the caller closes
// it); throws InputError when neither can be made.
int private_file(const std::string& data);

}  // namespace racepred::recording
