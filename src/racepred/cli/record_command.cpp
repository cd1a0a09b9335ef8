// racepred record: run a program built with racepred-cc / racepred-c++ and write the trace of
// the run (docs/RECORDER.md).
#include <sys/wait.h>

#include <cstring>
#include <iostream>
#include <memory>

#include "racepred/cli/cli.hpp"
#include "racepred/format/recorder_settings.hpp"
#include "racepred/io/binary_reader.hpp"
#include "racepred/recording/finish.hpp"
#include "racepred/recording/launch.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred::cli {
namespace {

struct RecordOptions {
  std::string output = "trace.rpt";
  std::string raw;
  std::string finish;
  std::string repair;
  bool keep_raw = false;
  bool no_symbolize = false;
  bool quiet = false;
  uint64_t max_mb = 4096;
  uint32_t stack_depth = 0;
  std::vector<std::string> command;
};

void print_result(const recording::FinishResult& r, const std::string& out) {
  std::cerr << "racepred record: " << r.events << " events (" << r.threads << " threads, "
            << r.variables << " variables, " << r.locks << " locks, " << r.locations
            << " locations) -> " << out << " (" << r.output_bytes << " bytes";
  if (r.events)
    std::cerr << ", " << static_cast<double>(r.output_bytes) / static_cast<double>(r.events)
              << " B/event";
  std::cerr << ")\n";
  if (!r.complete)
    std::cerr << "racepred record: the recording did not end normally"
              << (r.capped ? " (stopped by the size cap)" : "")
              << (r.torn ? " (last block torn)" : "") << ": kept the consistent prefix, "
              << r.cut_events << " later events dropped\n";
  if (r.dropped)
    std::cerr << "racepred record: " << r.dropped
              << " events dropped by the runtime (raised while it was busy, e.g. in signal "
                 "handlers)\n";
  for (const std::string& n : r.notes)
    std::cerr << "racepred record: note: " << printable(n, 4096) << "\n";
}

int record(const RecordOptions& o) {
  if (!o.repair.empty()) {
    const BinaryTraceInfo info = repair_binary_trace(o.repair);
    std::cerr << "racepred record: " << o.repair << ": " << info.events << " events in "
              << info.event_blocks << " blocks; the file is whole (" << info.file_bytes
              << " bytes)\n";
    return kExitNoRace;
  }
  if (!o.finish.empty()) {
    recording::FinishOptions fo;
    fo.output = o.output;
    fo.symbolize = !o.no_symbolize;
    const recording::FinishResult r = recording::finish_recording(o.finish, fo);
    if (!o.quiet) print_result(r, o.output);
    return kExitNoRace;
  }
  recording::RecordRequest request;
  request.command = o.command;
  request.output = o.output;
  request.raw = o.raw;
  request.max_mb = o.max_mb;
  request.stack_depth = o.stack_depth;
  request.keep_raw = o.keep_raw;
  request.symbolize = !o.no_symbolize;
  const recording::RecordOutcome run = recording::record_program(request);
  if (!o.quiet) {
    const int status = run.status;
    if (WIFSIGNALED(status))
      std::cerr << "racepred record: the program was killed by signal " << WTERMSIG(status) << " ("
                << strsignal(WTERMSIG(status)) << ")\n";
    else if (WEXITSTATUS(status) != 0)
      std::cerr << "racepred record: the program exited with status " << WEXITSTATUS(status)
                << "\n";
    print_result(run.trace, o.output);
  }
  if (run.trace.events == 0)
    std::cerr << "racepred record: warning: the trace is empty: the program recorded no event\n";
  for (const recording::ChildTrace& child : run.children) {
    if (!child.error.empty()) {
      std::cerr << "racepred record: child process " << child.pid << ": " << child.error << "\n";
    } else if (!o.quiet) {
      std::cerr << "racepred record: child process " << child.pid << ", recorded apart:\n";
      print_result(child.result, child.output);
    }
  }
  // The program's status, as a shell gives it: its exit code, or 128 + the signal that killed
  // it (a trace was written either way; errors that leave no trace exit 2 before this).
  if (WIFSIGNALED(run.status)) return 128 + WTERMSIG(run.status);
  return WIFEXITED(run.status) ? WEXITSTATUS(run.status) : kExitNoRace;
}

// The runtime's settings (format/recorder_settings.inc), for the help text.
std::string settings_help() {
  std::string s = "Settings of the recording runtime (environment variables of the program):\n";
  for (const format::RecorderSetting& r : format::kRecorderSettings) {
    s += "  " + std::string(r.env) + " (" + r.type + ", default " +
         (*r.def ? std::string(r.def) : std::string("unset")) + "): " + r.help + "\n";
  }
  return s;
}

}  // namespace

Command add_record_command(CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  CLI::App* sub = app.add_subcommand(
      "record", "Run a program built with racepred-cc/racepred-c++ and write the trace of the run");
  sub->footer(
      "The program must be compiled with -fsanitize=thread and linked against racepred's "
      "runtime: build it with racepred-cc / racepred-c++ (in the build's bin/ directory).\n"
      "Instead of `racepred record`, set RACEPRED_RECORD=FILE.raw when running the program, "
      "then `racepred record --finish FILE.raw -o trace.rpt`.\n"
      "Examples:\n"
      "  racepred record -o run.rpt -- ./prog arg1 arg2\n"
      "  racepred analyze -e fasttrack,lockset run.rpt\n" +
      settings_help());
  sub->add_option("-o,--output", o->output,
                  "Trace to write: binary, or STD text when the name ends in .std or .txt")
      ->capture_default_str();
  sub->add_option("--raw", o->raw,
                  "Where the runtime writes its raw recording (default OUTPUT.raw)");
  sub->add_flag("--keep-raw", o->keep_raw, "Keep the raw recording");
  sub->add_option("--max-mb", o->max_mb,
                  "Stop recording cleanly when the raw recording reaches this size (0: no cap)")
      ->capture_default_str();
  sub->add_option("--stack-depth", o->stack_depth,
                  "Record a call stack of up to N frames for every access, lock operation and "
                  "thread creation (binary traces; 0: one location per event); reports then "
                  "show stacks as ThreadSanitizer does")
      ->capture_default_str()
      ->check(CLI::Range(0, 1024));
  sub->add_flag("--no-symbolize", o->no_symbolize,
                "Name locations module+offset and memory by hex address (no addr2line, nm)");
  CLI::Option* finish =
      sub->add_option("--finish", o->finish, "Only turn an existing raw recording into a trace");
  CLI::Option* repair = sub->add_option(
      "--repair", o->repair,
      "Make a binary trace that was cut short whole again (keeps its complete blocks)");
  sub->add_flag("-q,--quiet", o->quiet, "No summary on standard error");
  CLI::Option* command =
      sub->add_option("command", o->command, "The program and its arguments (after --)");
  // Each of the three is a job of its own: naming two is an error, not one ignored.
  finish->excludes(repair);
  command->excludes(finish);
  command->excludes(repair);
  return {sub, [o](std::ostream&) { return record(*o); }};
}

}  // namespace racepred::cli
