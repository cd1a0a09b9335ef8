// Recording a run: the program (built with racepred-cc / racepred-c++) is started with an
// argument vector and RACEPRED_RECORD naming its raw recording; afterwards the recording and
// those of its child processes (RAW.<pid>) are turned into traces.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "racepred/recording/finish.hpp"

namespace racepred::recording {

struct RecordRequest {
  std::vector<std::string> command;  // the program and its arguments
  std::string output = "trace.rpt";
  std::string raw;         // where the runtime writes; "" = OUTPUT.raw
  uint64_t max_mb = 4096;  // RACEPRED_MAX_MB (0: no cap)
  // Frames per call stack (RACEPRED_STACK_DEPTH; 0: none).
  uint32_t stack_depth = 0;
  bool keep_raw = false;
  bool symbolize = true;
};

struct ChildTrace {
  uint64_t pid = 0;
  std::string output;  // OUTPUT with ".<pid>" before its extension
  FinishResult result;
  std::string error;  // the recording could not be turned into a trace: why (result unset)
};

struct RecordOutcome {
  int status = 0;  // the program's wait status
  FinishResult trace;
  std::vector<ChildTrace> children;  // by pid
};

// Runs the request's program and writes the traces. Throws InputError when the program cannot
// be run, is linked with the real ThreadSanitizer runtime or wrote no recording, or when its
// recording is corrupt.
RecordOutcome record_program(const RecordRequest& request);

// The raw recordings of the program's child processes next to `raw`: the runtime writes those of
// fork() children and of instrumented programs it execs to RAW.<pid>. Sorted by pid.
std::vector<std::pair<std::string, uint64_t>> child_recordings(const std::string& raw);

// OUTPUT with ".<pid>" before its extension: run.rpt -> run.1234.rpt.
std::string child_output(const std::string& output, uint64_t pid);

// True when `path` is an ELF file linked with the real ThreadSanitizer runtime (`-fsanitize=thread`
// at link time): it names libtsan.so (dynamic) or carries ThreadSanitizer's messages
// (-static-libtsan). Such a program runs under ThreadSanitizer and records nothing.
bool linked_with_real_tsan(const std::string& path);

}  // namespace racepred::recording
