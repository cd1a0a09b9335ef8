#include "racepred/recording/spawn.hpp"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

extern char** environ;

namespace racepred::recording {
namespace {

// Closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool write_all(int fd, const std::string& data) {
  for (size_t at = 0; at < data.size();) {
    const ssize_t n = ::write(fd, data.data() + at, data.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t at = 0; at <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::string dir = end > at ? dirs.substr(at, end - at) : ".";
    const std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    at = end + 1;
  }
  return "";
}

pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty() || argv[0].empty()) throw SpawnError("cannot run an empty command");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment: ours, with the options' variables replaced or added.
  std::vector<std::string> own;
  for (const auto& [name, value] : options.env) own.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (char** e = environ; e && *e; ++e) {
    bool replaced = false;
    for (const auto& [name, value] : options.env)
      if (std::strncmp(*e, name.c_str(), name.size()) == 0 && (*e)[name.size()] == '=')
        replaced = true;
    if (!replaced) envp.push_back(*e);
  }
  for (std::string& s : own) envp.push_back(s.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (options.stdin_fd >= 0) posix_spawn_file_actions_adddup2(&actions, options.stdin_fd, 0);
  if (options.stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, options.stdout_fd, 1);
  if (options.stderr_fd >= 0)
    posix_spawn_file_actions_adddup2(&actions, options.stderr_fd, 2);
  else if (options.quiet_stderr)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw SpawnError("cannot run " + argv[0] + ": " + std::strerror(error));
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

int private_file(const std::string& data) {
  int fd = ::memfd_create("racepred", MFD_CLOEXEC);
  if (fd < 0) {
    // No memfd (old kernel): a file only we can read, unlinked at once.
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/racepred.XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0)
      throw InputError(std::string("cannot make a temporary file: ") + std::strerror(errno));
    ::unlink(path.c_str());
  }
  if (!write_all(fd, data) || ::lseek(fd, 0, SEEK_SET) != 0) {
    const int e = errno;
    ::close(fd);
    throw InputError(std::string("cannot write a temporary file: ") + std::strerror(e));
  }
  return fd;
}

Captured run_capture(const std::vector<std::string>& argv, const std::string& input) {
  Fd in;
  in.fd = input.empty() ? ::open("/dev/null", O_RDONLY | O_CLOEXEC) : private_file(input);
  int pipe[2];
  if (::pipe2(pipe, O_CLOEXEC) != 0)
    throw InputError(std::string("cannot make a pipe: ") + std::strerror(errno));
  Fd read_end{pipe[0]}, write_end{pipe[1]};
  SpawnOptions options;
  options.stdin_fd = in.fd;
  options.stdout_fd = write_end.fd;
  options.quiet_stderr = true;
  const pid_t pid = spawn(argv, options);
  ::close(write_end.fd);
  write_end.fd = -1;
  Captured result;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(read_end.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.out.append(buf, static_cast<size_t>(n));
  }
  result.status = wait_for(pid);
  return result;
}

}  // namespace racepred::recording
