#include "racepred/explore/execution.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "racepred/format/explore_channel.hpp"
#include "racepred/recording/spawn.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::explore {
namespace {

namespace ch = format::explore;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The program's standard error, a private file, read back when it has ended: its last 4 KiB.
std::string tail_of(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return "";
  const off_t size = st.st_size;
  const off_t from = size > 4096 ? size - 4096 : 0;
  std::string text(static_cast<size_t>(size - from), '\0');
  const ssize_t n = pread(fd, text.data(), text.size(), from);
  text.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return text;
}

}  // namespace

bool ChoicePoint::is_access() const {
  for (const Candidate& c : candidates)
    if (c.tid == current) return c.op == ch::kOpAccess;
  return false;
}

WorkDir::WorkDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/racepred-explore-XXXXXX";
  if (!mkdtemp(pattern.data()))
    throw InputError("racepred: error: cannot make a temporary directory: " +
                     std::string(std::strerror(errno)));
  path = pattern;
}

WorkDir::~WorkDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

const char* operation_name(uint8_t op) {
  static const char* const kNames[] = {"run",
                                       "thread create",
                                       "join",
                                       "thread exit",
                                       "lock",
                                       "trylock",
                                       "timed lock",
                                       "unlock",
                                       "read lock",
                                       "read trylock",
                                       "timed read lock",
                                       "write lock",
                                       "write trylock",
                                       "timed write lock",
                                       "read unlock",
                                       "write unlock",
                                       "condition wait",
                                       "timed condition wait",
                                       "signal",
                                       "broadcast",
                                       "semaphore wait",
                                       "semaphore trywait",
                                       "timed semaphore wait",
                                       "semaphore post",
                                       "barrier init",
                                       "barrier wait",
                                       "once",
                                       "once end",
                                       "atomic",
                                       "sleep",
                                       "yield",
                                       "FILE lock",
                                       "FILE unlock",
                                       "memory access"};
  return op < sizeof kNames / sizeof kNames[0] ? kNames[op] : "operation";
}

namespace {

// Stack and library addresses the same in every execution: a replay sees the same objects.
void fix_layout() {
  static const bool fixed_layout = [] {
    const int current = personality(0xffffffff);
    return current != -1 &&
           personality(static_cast<unsigned long>(current) | ADDR_NO_RANDOMIZE) != -1;
  }();
  (void)fixed_layout;
}

std::vector<std::pair<std::string, std::string>> program_env(const ProgramSpec& program,
                                                             const std::string& raw, int channel) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"RACEPRED_RECORD", raw},
      {"RACEPRED_SCHEDULE", "controlled"},
      {"RACEPRED_SCHEDULE_FD", std::to_string(channel)},
      {"RACEPRED_SCHEDULE_STEPS", std::to_string(program.max_steps)},
      {"RACEPRED_SCHEDULE_ACCESSES", program.access_points ? "1" : "0"},
      {"RACEPRED_SCHEDULE_SPURIOUS", program.spurious_wakeups ? "1" : "0"}};
  if (!program.access_offsets.empty())
    env.push_back({"RACEPRED_SCHEDULE_ACCESS", program.access_offsets});
  if (program.every_point) env.push_back({"RACEPRED_SCHEDULE_EVERY", "1"});
  if (program.stack_depth)
    env.push_back({"RACEPRED_STACK_DEPTH", std::to_string(program.stack_depth)});
  return env;
}

// One server message within `timeout_ms`; false when none came (or the socket closed).
bool receive_server(int fd, ch::ServerMsg& m, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = ::recv(fd, &m, sizeof m, 0);
    if (n < 0 && errno == EINTR) continue;
    return n == static_cast<ssize_t>(sizeof m);
  }
}

}  // namespace

ForkServer::~ForkServer() {
  stop();
}

void ForkServer::stop() {
  if (control_ >= 0) ::close(control_);  // the server exits when it sees the socket closed
  control_ = -1;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    recording::wait_for(pid_);
  }
  pid_ = -1;
}

bool ForkServer::start(const ProgramSpec& program, const std::string& dir, std::string& reason) {
  stop();
  fix_layout();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    reason = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  Fd theirs{sv[1]};
  control_ = sv[0];
  fcntl(theirs.fd, F_SETFD, 0);
  Fd null_in{::open("/dev/null", O_RDONLY | O_CLOEXEC)};
  Fd null_out{::open("/dev/null", O_WRONLY | O_CLOEXEC)};
  recording::SpawnOptions options;
  options.env = program_env(program, dir + "/server.raw", theirs.fd);
  options.env.push_back({"RACEPRED_SCHEDULE_SERVER", "1"});
  options.stdin_fd = null_in.fd;
  options.stdout_fd = null_out.fd;
  options.stderr_fd = null_out.fd;
  try {
    pid_ = recording::spawn(program.command, options);
  } catch (const recording::SpawnError& e) {
    reason = e.what();
    stop();
    return false;
  }
  ::close(theirs.fd);
  theirs.fd = -1;
  ch::ServerMsg ready;
  const int wait_ms = static_cast<int>(program.timeout_seconds * 1000);
  if (!receive_server(control_, ready, wait_ms) || ready.kind != ch::kServerReady) {
    reason = "the program did not start as a fork server (a runtime older than this racepred?)";
    stop();
    return false;
  }
  if (!ready.ok) {
    reason = std::to_string(ready.value) + " threads run before main (a fork keeps only one)";
    stop();
    return false;
  }
  return true;
}

int ForkServer::fork_execution(const std::string& raw, int channel, int err) {
  if (!running()) return -1;
  std::vector<char> msg(sizeof(ch::RunMsg) + raw.size());
  ch::RunMsg run;
  run.path_size = static_cast<uint32_t>(raw.size());
  std::memcpy(msg.data(), &run, sizeof run);
  std::memcpy(msg.data() + sizeof run, raw.data(), raw.size());
  iovec io{msg.data(), msg.size()};
  alignas(cmsghdr) char control_buf[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr m{};
  m.msg_iov = &io;
  m.msg_iovlen = 1;
  m.msg_control = control_buf;
  m.msg_controllen = sizeof control_buf;
  cmsghdr* h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(2 * sizeof(int));
  const int fds[2] = {channel, err};
  std::memcpy(CMSG_DATA(h), fds, sizeof fds);
  ch::ServerMsg forked;
  if (raw.size() > ch::kMaxServerPath ||
      ::sendmsg(control_, &m, MSG_NOSIGNAL) != static_cast<ssize_t>(msg.size()) ||
      !receive_server(control_, forked, 10000) || forked.kind != ch::kServerForked || !forked.ok) {
    stop();
    return -1;
  }
  return static_cast<int>(forked.value);
}

int ForkServer::wait_execution(int pid, double timeout_seconds) {
  ch::ServerMsg waited;
  if (receive_server(control_, waited, static_cast<int>(timeout_seconds * 1000) + 10000) &&
      waited.kind == ch::kServerWaited)
    return static_cast<int>(waited.value);
  ::kill(pid, SIGKILL);
  stop();
  return SIGKILL;  // the wait status of a process killed by SIGKILL
}

ExecutionResult run_execution(const ProgramSpec& program, const std::string& raw,
                              const Chooser& choose, ForkServer* server) {
  fix_layout();

  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    throw InputError(std::string("racepred: error: socketpair: ") + std::strerror(errno));
  Fd ours{sv[0]};
  Fd theirs{sv[1]};
  char err_name[] = "/tmp/racepred-explore-stderr-XXXXXX";
  Fd err{mkostemp(err_name, O_CLOEXEC)};
  if (err.fd >= 0) unlink(err_name);

  ::unlink(raw.c_str());
  pid_t pid = -1;
  const bool forked = server && server->running() && err.fd >= 0 &&
                      (pid = server->fork_execution(raw, theirs.fd, err.fd)) > 0;
  if (!forked) {
    // A fresh process: its standard input and output are /dev/null (a forked execution
    // inherits the server's).
    Fd null_in{::open("/dev/null", O_RDONLY | O_CLOEXEC)};
    Fd null_out{::open("/dev/null", O_WRONLY | O_CLOEXEC)};
    // The program's end of the channel is inherited (no close-on-exec) only while this thread
    // spawns it: with --jobs another worker's program must not inherit it too (it would hold
    // the channel open after this execution's program ended).
    static std::mutex spawning;
    std::lock_guard lock(spawning);
    fcntl(theirs.fd, F_SETFD, 0);
    recording::SpawnOptions options;
    options.env = program_env(program, raw, theirs.fd);
    options.stdin_fd = null_in.fd;
    options.stdout_fd = null_out.fd;
    options.stderr_fd = err.fd;
    try {
      pid = recording::spawn(program.command, options);
    } catch (const recording::SpawnError& e) {
      throw InputError(std::string("racepred: error: ") + e.what());
    }
    ::close(theirs.fd);
    theirs.fd = -1;
  }
  if (theirs.fd >= 0) ::close(theirs.fd);  // the fork server has its copy
  theirs.fd = -1;

  ExecutionResult result;
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::milliseconds(static_cast<int64_t>(program.timeout_seconds * 1000));
  std::vector<char> buf(sizeof(ch::ChoiceMsg) + ch::kMaxChoiceThreads * sizeof(ch::ChoiceThread) +
                        16384);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      result.ending = Ending::Hang;
      result.timed_out = true;
      break;
    }
    pollfd p{ours.fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count() > 1000 ? 1000 : left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::recv(ours.fd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every end closed: the program has ended
    const size_t size = static_cast<size_t>(n);
    if (buf[0] == ch::kChoice && size >= sizeof(ch::ChoiceMsg)) {
      ch::ChoiceMsg m;
      std::memcpy(&m, buf.data(), sizeof m);
      ChoicePoint point;
      point.current = m.current;
      point.timeouts = m.timeouts != 0;
      point.current_op = m.current_op;
      point.current_obj = m.current_obj;
      point.seq = m.seq;
      for (uint32_t i = 0; i < m.n; ++i) {
        const size_t at = sizeof m + i * sizeof(ch::ChoiceThread);
        if (at + sizeof(ch::ChoiceThread) > size) break;
        ch::ChoiceThread t;
        std::memcpy(&t, buf.data() + at, sizeof t);
        point.candidates.push_back({t.tid, t.op, t.obj, t.point, t.times_out != 0});
      }
      size_t index = point.candidates.empty() ? 0 : choose(point, result.points.size());
      if (index >= point.candidates.size()) index = 0;
      if (!point.candidates.empty()) point.chosen = point.candidates[index].tid;
      result.points.push_back(std::move(point));
      const uint32_t answer = static_cast<uint32_t>(index);
      if (::send(ours.fd, &answer, sizeof answer, MSG_NOSIGNAL) != sizeof answer) break;
    } else if (buf[0] == ch::kBlocked && size >= sizeof(ch::BlockedMsg)) {
      result.ending = Ending::Deadlock;
      result.blocked.assign(buf.data() + sizeof(ch::BlockedMsg), size - sizeof(ch::BlockedMsg));
    } else if (buf[0] == ch::kHang) {
      result.ending = Ending::Hang;
    }
  }
  result.status =
      forked ? server->wait_execution(pid, program.timeout_seconds) : recording::wait_for(pid);
  if (result.ending == Ending::Exited) {
    if (WIFSIGNALED(result.status)) {
      result.ending = Ending::Signaled;
      result.signal = WTERMSIG(result.status);
    } else if (WIFEXITED(result.status)) {
      result.exit_code = WEXITSTATUS(result.status);
    }
  }
  if (err.fd >= 0) result.stderr_tail = tail_of(err.fd);
  struct stat st;
  result.recorded = ::stat(raw.c_str(), &st) == 0;
  return result;
}

}  // namespace racepred::explore
