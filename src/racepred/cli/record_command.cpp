// racepred record: run a program built with racepred-cc / racepred-c++ and write the trace of
// the run (docs/RECORDER.md).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "racepred/cli/cli.hpp"
#include "racepred/cli/recording.hpp"
#include "racepred/io/binary_reader.hpp"
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
  std::vector<std::string> command;
};

void print_result(const FinishResult& r, const std::string& out) {
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

// The raw recordings of the program's child processes: the runtime writes those of fork()
// children and of instrumented programs it execs to RAW.<pid>. Sorted by pid.
std::vector<std::pair<std::string, uint64_t>> child_recordings(const std::string& raw) {
  namespace fs = std::filesystem;
  const fs::path raw_path(raw);
  const fs::path dir = raw_path.has_parent_path() ? raw_path.parent_path() : fs::path(".");
  const std::string prefix = raw_path.filename().string() + ".";
  std::vector<std::pair<std::string, uint64_t>> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string pid = name.substr(prefix.size());
    if (pid.size() > 10 ||
        !std::all_of(pid.begin(), pid.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      continue;
    found.emplace_back((dir / name).string(), std::stoull(pid));
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  return found;
}

// OUTPUT with ".<pid>" before its extension: run.rpt -> run.1234.rpt.
std::string child_output(const std::string& output, uint64_t pid) {
  const std::filesystem::path p(output);
  if (!p.has_extension()) return output + "." + std::to_string(pid);
  std::filesystem::path q = p;
  q.replace_extension("." + std::to_string(pid) + p.extension().string());
  return q.string();
}

// The executable `command` names (as execvp finds it), or "" when there is none.
std::string find_program(const std::string& command) {
  if (command.find('/') != std::string::npos) return command;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::string dir = end > at ? dirs.substr(at, end - at) : ".";
    const std::string candidate = dir + "/" + command;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return "";
}

// True when `path` is an ELF file linked with the real ThreadSanitizer runtime (pitfall 17:
// `-fsanitize=thread` at link time): it names libtsan.so (dynamic) or carries ThreadSanitizer's
// messages (-static-libtsan). Such a program runs under ThreadSanitizer and records nothing.
bool linked_with_real_tsan(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  if (!in.read(magic, 4) || std::memcmp(magic,
                                        "\x7f"
                                        "ELF",
                                        4) != 0)
    return false;
  static const std::string needles[] = {"libtsan.so", "ThreadSanitizer: "};
  std::string window;
  std::vector<char> chunk(1 << 20);
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    const size_t keep = window.size() > 32 ? 32 : window.size();
    window.erase(0, window.size() - keep);
    window.append(chunk.data(), static_cast<size_t>(in.gcount()));
    for (const std::string& n : needles)
      if (window.find(n) != std::string::npos) return true;
  }
  return false;
}

int record(const RecordOptions& o) {
  FinishOptions fo;
  fo.output = o.output;
  fo.symbolize = !o.no_symbolize;
  if (!o.repair.empty()) {
    const BinaryTraceInfo info = repair_binary_trace(o.repair);
    std::cerr << "racepred record: " << o.repair << ": " << info.events << " events in "
              << info.event_blocks << " blocks; the file is whole (" << info.file_bytes
              << " bytes)\n";
    return kExitNoRace;
  }
  if (!o.finish.empty()) {
    const FinishResult r = finish_recording(o.finish, fo);
    if (!o.quiet) print_result(r, o.output);
    return kExitNoRace;
  }
  if (o.command.empty())
    throw UsageError("give the program to run after -- (or --finish / --repair)");
  if (const std::string exe = find_program(o.command[0]);
      !exe.empty() && linked_with_real_tsan(exe))
    throw InputError("racepred: error: " + exe +
                     " is linked with the real ThreadSanitizer runtime (libtsan): it would run "
                     "under ThreadSanitizer and record nothing. Link it with racepred-cc / "
                     "racepred-c++ or racepred.cmake's racepred_instrument(), without "
                     "-fsanitize=thread on the link line (docs/RECORDER.md)");
  const std::string raw = o.raw.empty() ? o.output + ".raw" : o.raw;
  std::remove(raw.c_str());
  for (const auto& child : child_recordings(raw)) std::remove(child.first.c_str());
  const pid_t pid = fork();
  if (pid < 0)
    throw InputError(std::string("racepred: error: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    setenv("RACEPRED_RECORD", raw.c_str(), 1);
    setenv("RACEPRED_MAX_MB", std::to_string(o.max_mb).c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "racepred: error: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    struct stat st;
    if (stat(raw.c_str(), &st) != 0)
      throw InputError("racepred: error: the program could not be run");
  }
  struct stat st;
  if (stat(raw.c_str(), &st) != 0)
    throw InputError("racepred: error: " + o.command[0] +
                     " wrote no recording: was it built with racepred-cc / racepred-c++ "
                     "(compiled with -fsanitize=thread, linked with racepred's runtime)?");
  const FinishResult r = finish_recording(raw, fo);
  if (!o.keep_raw) std::remove(raw.c_str());
  if (!o.quiet) {
    if (WIFSIGNALED(status))
      std::cerr << "racepred record: the program was killed by signal " << WTERMSIG(status) << " ("
                << strsignal(WTERMSIG(status)) << ")\n";
    else if (WEXITSTATUS(status) != 0)
      std::cerr << "racepred record: the program exited with status " << WEXITSTATUS(status)
                << "\n";
    print_result(r, o.output);
  }
  // Child processes (fork, exec of an instrumented program): a trace each, OUTPUT.<pid>.EXT.
  for (const auto& [child_raw, child_pid] : child_recordings(raw)) {
    FinishOptions co = fo;
    co.output = child_output(o.output, child_pid);
    try {
      const FinishResult cr = finish_recording(child_raw, co);
      if (!o.quiet) {
        std::cerr << "racepred record: child process " << child_pid << ", recorded apart:\n";
        print_result(cr, co.output);
      }
    } catch (const InputError& e) {
      std::cerr << "racepred: warning: child process " << child_pid << ": " << e.what() << "\n";
    }
    if (!o.keep_raw) std::remove(child_raw.c_str());
  }
  return kExitNoRace;
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
      "  racepred analyze -e fasttrack,lockset run.rpt");
  sub->add_option("-o,--output", o->output,
                  "Trace to write: binary, or STD text when the name ends in .std or .txt")
      ->capture_default_str();
  sub->add_option("--raw", o->raw,
                  "Where the runtime writes its raw recording (default OUTPUT.raw)");
  sub->add_flag("--keep-raw", o->keep_raw, "Keep the raw recording");
  sub->add_option("--max-mb", o->max_mb,
                  "Stop recording cleanly when the raw recording reaches this size (0: no cap)")
      ->capture_default_str();
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
