#include "racepred/recording/launch.hpp"

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "racepred/recording/spawn.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::recording {

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

std::string child_output(const std::string& output, uint64_t pid) {
  const std::filesystem::path p(output);
  if (!p.has_extension()) return output + "." + std::to_string(pid);
  std::filesystem::path q = p;
  std::string extension = ".";
  extension.append(std::to_string(pid)).append(p.extension().string());
  q.replace_extension(extension);
  return q.string();
}

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

RecordOutcome record_program(const RecordRequest& request) {
  if (request.command.empty())
    throw UsageError("give the program to run after -- (or --finish / --repair)");
  if (const std::string exe = find_program(request.command[0]);
      !exe.empty() && linked_with_real_tsan(exe))
    throw InputError("racepred: error: " + exe +
                     " is linked with the real ThreadSanitizer runtime (libtsan): it would run "
                     "under ThreadSanitizer and record nothing. Link it with racepred-cc / "
                     "racepred-c++ or racepred.cmake's racepred_instrument(), without "
                     "-fsanitize=thread on the link line (docs/RECORDER.md)");
  const std::string raw = request.raw.empty() ? request.output + ".raw" : request.raw;
  std::remove(raw.c_str());
  for (const auto& child : child_recordings(raw)) std::remove(child.first.c_str());

  SpawnOptions spawn_options;
  spawn_options.env = {{"RACEPRED_RECORD", raw},
                       {"RACEPRED_MAX_MB", std::to_string(request.max_mb)},
                       {"RACEPRED_STACK_DEPTH", std::to_string(request.stack_depth)}};
  pid_t pid = -1;
  try {
    pid = spawn(request.command, spawn_options);
  } catch (const SpawnError& e) {
    throw InputError(std::string("racepred: error: ") + e.what());
  }
  RecordOutcome outcome;
  outcome.status = wait_for(pid);
  struct stat st;
  if (stat(raw.c_str(), &st) != 0)
    throw InputError("racepred: error: " + request.command[0] +
                     " wrote no recording: was it built with racepred-cc / racepred-c++ "
                     "(compiled with -fsanitize=thread, linked with racepred's runtime)?");
  FinishOptions options;
  options.output = request.output;
  options.symbolize = request.symbolize;
  outcome.trace = finish_recording(raw, options);
  if (!request.keep_raw) std::remove(raw.c_str());

  // Child processes (fork, exec of an instrumented program): a trace each, OUTPUT.<pid>.EXT.
  for (const auto& [child_raw, child_pid] : child_recordings(raw)) {
    ChildTrace child;
    child.pid = child_pid;
    child.output = child_output(request.output, child_pid);
    FinishOptions child_options = options;
    child_options.output = child.output;
    try {
      child.result = finish_recording(child_raw, child_options);
    } catch (const InputError& e) {
      child.error = e.what();
    }
    if (!request.keep_raw) std::remove(child_raw.c_str());
    outcome.children.push_back(std::move(child));
  }
  return outcome;
}

}  // namespace racepred::recording
