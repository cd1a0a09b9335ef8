#include "racepred/cli/output.hpp"

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>

#include "racepred/trace/error.hpp"

namespace racepred::cli {
namespace {

// Temporary files to remove when SIGINT or SIGTERM ends the process. Fixed storage: the
// handler may only call async-signal-safe functions (unlink, sigaction, raise).
constexpr int kTempSlots = 8;
char g_temp_paths[kTempSlots][PATH_MAX];
std::atomic<bool> g_temp_used[kTempSlots];
std::once_flag g_handlers_once;

void remove_temps_and_die(int sig) {
  for (int i = 0; i < kTempSlots; ++i)
    if (g_temp_used[i].load()) unlink(g_temp_paths[i]);
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
  raise(sig);
}

void install_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_DFL) continue;  // ignored or handled by someone else: keep it
    struct sigaction action {};
    action.sa_handler = remove_temps_and_die;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
}

int register_temp(const std::string& path) {
  std::call_once(g_handlers_once, install_handlers);
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kTempSlots; ++i) {
    if (g_temp_used[i].load()) continue;
    std::memcpy(g_temp_paths[i], path.c_str(), path.size() + 1);
    g_temp_used[i].store(true);
    return i;
  }
  return -1;
}

void unregister_temp(const std::string& path) {
  for (int i = 0; i < kTempSlots; ++i)
    if (g_temp_used[i].load() && path == g_temp_paths[i]) g_temp_used[i].store(false);
}

std::string reason(int e) {
  return e ? std::string(": ") + std::strerror(e) : std::string();
}

// The reader of standard output has gone (a closed pipe, as after `| head -1`).
bool stdout_reader_gone() {
  struct pollfd p {};
  p.fd = STDOUT_FILENO;
  p.events = POLLOUT;
  return poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

}  // namespace

void check_not_an_input(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return;
  struct stat out;
  if (stat(output.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) return;
  for (const std::string& input : inputs) {
    if (input.empty()) continue;
    struct stat in;
    const int r = input == "-" ? fstat(STDIN_FILENO, &in) : stat(input.c_str(), &in);
    if (r == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      throw UsageError("the output file " + output + " is the input " +
                       (input == "-" ? std::string("(standard input)") : input) +
                       ": refusing to overwrite it (give another -o FILE)");
  }
}

OutputFile::OutputFile(std::string path, const std::vector<std::string>& inputs)
    : path_(path == "-" ? "" : std::move(path)) {
  if (path_.empty()) {
    write_path_.push_back('-');  // (not `= "-"`: gcc 12 warns about that assignment here)
    return;
  }
  check_not_an_input(path_, inputs);
  // Follow symbolic links: the file they point to is replaced, the links stay.
  target_ = path_;
  if (char* real = realpath(path_.c_str(), nullptr)) {
    target_ = real;
    free(real);
  }
  mode_t mode;
  struct stat st;
  if (stat(target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw OutputError("racepred: error: cannot write " + path_ + ": it is a directory");
    if (!S_ISREG(st.st_mode)) {  // a device or a FIFO: written in place
      write_path_ = path_;
      return;
    }
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = umask(0);  // a new file gets the usual permissions, not mkstemp's 0600
    umask(mask);
    mode = 0666 & ~mask;
  }
  std::string pattern = target_ + ".tmp.XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0)
    throw OutputError("racepred: error: cannot create " + pattern + " for " + path_ +
                      reason(errno));
  register_temp(pattern);
  fchmod(fd, mode);
  ::close(fd);
  write_path_ = pattern;
  temporary_ = true;
}

OutputFile::~OutputFile() {
  discard();
}

void OutputFile::commit() {
  if (!temporary_) return;
  if (std::rename(write_path_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    discard();
    throw OutputError("racepred: error: cannot write " + path_ + reason(e));
  }
  unregister_temp(write_path_);
  temporary_ = false;
}

void OutputFile::discard() {
  if (!temporary_) return;
  std::remove(write_path_.c_str());
  unregister_temp(write_path_);
  temporary_ = false;
}

ReportOutput::ReportOutput(std::string path, std::vector<std::string> inputs)
    : path_(path == "-" ? "" : std::move(path)), inputs_(std::move(inputs)) {}

ReportOutput::~ReportOutput() {
  discard();
}

std::string ReportOutput::destination() const {
  return path_.empty() ? "standard output" : path_;
}

std::ostream& ReportOutput::stream() {
  if (path_.empty()) return std::cout;
  if (!stream_) {
    file_ = std::make_unique<OutputFile>(path_, inputs_);
    stream_ = std::make_unique<std::ofstream>(file_->path(), std::ios::binary | std::ios::trunc);
    if (!*stream_) {
      const int e = errno;
      discard();
      throw OutputError("racepred: error: cannot write " + path_ + reason(e));
    }
  }
  return *stream_;
}

void ReportOutput::commit() {
  if (committed_) return;
  if (path_.empty()) {
    errno = 0;
    std::cout.flush();
    if (!std::cout) {
      const int e = errno;
      std::cout.clear();
      if (e == EPIPE || stdout_reader_gone()) throw OutputError("", /*quiet=*/true);
      throw OutputError("racepred: error: cannot write the report to standard output" + reason(e));
    }
    committed_ = true;
    return;
  }
  stream();  // an empty report still creates the file
  errno = 0;
  stream_->flush();
  stream_->close();
  if (!*stream_) {
    const int e = errno;
    discard();
    throw OutputError("racepred: error: cannot write the report to " + path_ + reason(e));
  }
  file_->commit();
  committed_ = true;
}

void ReportOutput::discard() {
  stream_.reset();
  if (file_) file_.reset();
}

}  // namespace racepred::cli
