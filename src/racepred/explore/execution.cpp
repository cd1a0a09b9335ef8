#include "racepred/explore/execution.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <new>
#include <stdexcept>

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
  if (size <= 0) return "";
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

std::vector<BlockedThread> parse_blocked(const std::string& text) {
  // "  T<tid> waits for join of T<tid> ...", "  T<tid> waits for mutex 0x<hex> ...", or another
  // operation (racepred/recorder/sched.cpp, describe()).
  std::vector<BlockedThread> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    static const char kHead[] = "  T";
    static const char kWaits[] = " waits for ";
    if (line.rfind(kHead, 0) != 0) continue;
    char* rest = nullptr;
    const char* digits = line.c_str() + sizeof kHead - 1;
    if (*digits < '0' || *digits > '9') continue;
    const unsigned long tid = std::strtoul(digits, &rest, 10);
    if (tid > UINT32_MAX || std::strncmp(rest, kWaits, sizeof kWaits - 1) != 0) continue;
    const char* what = rest + sizeof kWaits - 1;
    BlockedThread b;
    b.tid = static_cast<uint32_t>(tid);
    static const char kJoin[] = "join of T";
    static const char kMutex[] = "mutex 0x";
    char* after = nullptr;
    if (std::strncmp(what, kJoin, sizeof kJoin - 1) == 0) {
      const char* n = what + sizeof kJoin - 1;
      if (*n >= '0' && *n <= '9') {
        const unsigned long joined = std::strtoul(n, &after, 10);
        if (joined <= UINT32_MAX) {
          b.op = ch::kOpThreadJoin;
          b.obj = joined;
        }
      }
    } else if (std::strncmp(what, kMutex, sizeof kMutex - 1) == 0) {
      const char* n = what + sizeof kMutex - 1;
      // Not a condition wait's return that waits for its mutex ("... after a signal"): its
      // receipt of the signal comes first.
      if (std::isxdigit(static_cast<unsigned char>(*n)) &&
          line.find(" after a signal") == std::string::npos) {
        b.op = ch::kOpMutexLock;
        b.obj = std::strtoull(n, &after, 16);
      }
    }
    out.push_back(b);
  }
  return out;
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
                                                             const std::string& raw, int channel,
                                                             int plan_fd = -1) {
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
  if (plan_fd >= 0) env.push_back({"RACEPRED_SCHEDULE_PLAN_FD", std::to_string(plan_fd)});
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

// The region: the header and a dfs prefix of up to about a million choices, then the records
// (a three-thread execution's choice point takes 72 bytes). Pages are used only as far as an
// execution writes.
constexpr size_t kPlanRegionSize = size_t{64} << 20;
constexpr size_t kPlanMinRecords = size_t{16} << 20;

PlanRegion::~PlanRegion() {
  close_fd();
  if (header_) ::munmap(header_, size_);
}

void PlanRegion::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool PlanRegion::create() {
  if (header_) return true;
  const int fd = memfd_create("racepred-explore-plan", MFD_CLOEXEC);
  if (fd < 0) return false;
  if (::ftruncate(fd, static_cast<off_t>(kPlanRegionSize)) != 0) {
    ::close(fd);
    return false;
  }
  void* at = ::mmap(nullptr, kPlanRegionSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (at == MAP_FAILED) {
    ::close(fd);
    return false;
  }
  fd_ = fd;
  size_ = kPlanRegionSize;
  header_ = new (at) ch::PlanHeader();
  header_->size = size_;
  header_->records_offset = sizeof(ch::PlanHeader);
  return true;
}

bool PlanRegion::write(const ExecutionPlan* plan) {
  if (!header_) return false;
  ch::PlanHeader& h = *header_;
  h.kind = ch::kPlanNone;
  h.records = 0;
  h.records_bytes = 0;
  h.live = 0;
  h.prefix = 0;
  h.records_offset = sizeof(ch::PlanHeader);
  records_offset_ = h.records_offset;
  if (!plan || plan->kind == ch::kPlanNone) return plan == nullptr;
  const size_t entries = plan->prefix.size() * sizeof(ch::PlanEntry);
  const size_t records = (sizeof(ch::PlanHeader) + entries + 7) / 8 * 8;
  if (records + kPlanMinRecords > size_) return false;
  if (entries) std::memcpy(static_cast<void*>(&h + 1), plan->prefix.data(), entries);
  h.prefix = plan->prefix.size();
  h.records_offset = records;
  records_offset_ = records;
  h.seed = plan->seed;
  h.points = plan->points;
  h.depth = plan->depth;
  h.kind = plan->kind;
  return true;
}

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
  forked_ = 0;
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
  // The plan region: the server maps it before main, its children share the mapping.
  int plan_fd = -1;
  if (plan_.create() && plan_.fd() >= 0) {
    plan_fd = plan_.fd();
    fcntl(plan_fd, F_SETFD, 0);
  }
  recording::SpawnOptions options;
  options.env = program_env(program, dir + "/server.raw", theirs.fd, plan_fd);
  options.env.push_back({"RACEPRED_SCHEDULE_SERVER", "1"});
  // The dynamic loader binds every symbol before main, once in the server, instead of lazily in
  // every execution (each would resolve the program's calls again and copy the pages it writes);
  // the server removes the variable again (the program does not see it).
  if (!std::getenv("LD_BIND_NOW")) {
    options.env.push_back({"LD_BIND_NOW", "1"});
    options.env.push_back({"RACEPRED_SCHEDULE_BIND_NOW", "1"});
  }
  options.stdin_fd = null_in.fd;
  options.stdout_fd = null_out.fd;
  options.stderr_fd = null_out.fd;
  try {
    pid_ = recording::spawn(program.command, options);
  } catch (const recording::SpawnError& e) {
    plan_.close_fd();
    reason = e.what();
    stop();
    return false;
  }
  plan_.close_fd();  // the server has its copy
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

bool ForkServer::send_execution(const std::string& raw, int channel, int err, int raw_fd) {
  if (!running()) return false;
  std::vector<char> msg(sizeof(ch::RunMsg) + raw.size());
  ch::RunMsg run;
  run.path_size = static_cast<uint32_t>(raw.size());
  std::memcpy(msg.data(), &run, sizeof run);
  std::memcpy(msg.data() + sizeof run, raw.data(), raw.size());
  iovec io{msg.data(), msg.size()};
  const int fds[3] = {channel, err, raw_fd};
  const size_t nfds = raw_fd >= 0 ? 3 : 2;
  alignas(cmsghdr) char control_buf[CMSG_SPACE(3 * sizeof(int))] = {};
  msghdr m{};
  m.msg_iov = &io;
  m.msg_iovlen = 1;
  m.msg_control = control_buf;
  m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
  cmsghdr* h = CMSG_FIRSTHDR(&m);
  h->cmsg_level = SOL_SOCKET;
  h->cmsg_type = SCM_RIGHTS;
  h->cmsg_len = CMSG_LEN(nfds * sizeof(int));
  std::memcpy(CMSG_DATA(h), fds, nfds * sizeof(int));
  if (raw.size() > ch::kMaxServerPath ||
      ::sendmsg(control_, &m, MSG_NOSIGNAL) != static_cast<ssize_t>(msg.size())) {
    stop();
    return false;
  }
  forked_ = 1;
  return true;
}

int ForkServer::execution_pid(int timeout_ms) {
  if (forked_ != 1) return forked_;
  ch::ServerMsg forked;
  // Usually queued already (the execution has ended): one system call.
  ssize_t n = running() ? ::recv(control_, &forked, sizeof forked, MSG_DONTWAIT) : 0;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    n = receive_server(control_, forked, timeout_ms) ? static_cast<ssize_t>(sizeof forked) : 0;
  forked_ = n == static_cast<ssize_t>(sizeof forked) && forked.kind == ch::kServerForked &&
                    forked.ok && forked.value > 0
                ? static_cast<int>(forked.value)
                : -1;
  return forked_;
}

ExecutionResult run_execution(const ProgramSpec& program, const std::string& raw,
                              const Chooser& choose, ForkServer* server, const ExecutionPlan* plan,
                              int raw_fd) {
  fix_layout();

  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    throw InputError(std::string("racepred: error: socketpair: ") + std::strerror(errno));
  Fd ours{sv[0]};
  Fd theirs{sv[1]};
  // The program's standard error: a memory file (no file system work per execution), else a
  // temporary file.
  Fd err{memfd_create("racepred-explore-stderr", MFD_CLOEXEC)};
  if (err.fd < 0) {
    char err_name[] = "/tmp/racepred-explore-stderr-XXXXXX";
    err.fd = mkostemp(err_name, O_CLOEXEC);
    if (err.fd >= 0) unlink(err_name);
  }

  pid_t pid = -1;
  // The plan goes into the server's region (every execution resets it, also one without a
  // plan), or into this thread's region for a fresh process.
  PlanRegion* region = nullptr;
  bool planned = false;
  if (server && server->running() && err.fd >= 0 && (region = server->plan_region()))
    planned = region->write(plan) && plan;
  // A fork of the server records into the caller's file, emptied here (its offset is shared
  // with the execution's descriptor).
  const bool into_fd =
      raw_fd >= 0 && ::ftruncate(raw_fd, 0) == 0 && ::lseek(raw_fd, 0, SEEK_SET) == 0;
  if (!into_fd) ::unlink(raw.c_str());
  const bool forked = server && server->running() && err.fd >= 0 &&
                      server->send_execution(raw, theirs.fd, err.fd, into_fd ? raw_fd : -1);
  if (!forked) {
    if (into_fd) ::unlink(raw.c_str());
    region = nullptr;
    planned = false;
    static thread_local PlanRegion own;
    if (plan && plan->kind != ch::kPlanNone && own.create() && own.write(plan)) {
      region = &own;
      planned = true;
    }
    // A fresh process: its standard input and output are /dev/null (a forked execution
    // inherits the server's).
    Fd null_in{::open("/dev/null", O_RDONLY | O_CLOEXEC)};
    Fd null_out{::open("/dev/null", O_WRONLY | O_CLOEXEC)};
    // The program's end of the channel (and the plan region) is inherited (no close-on-exec)
    // only while this thread spawns it: with --jobs another worker's program must not inherit
    // it too (it would hold the channel open after this execution's program ended).
    static std::mutex spawning;
    std::lock_guard lock(spawning);
    fcntl(theirs.fd, F_SETFD, 0);
    if (planned) fcntl(region->fd(), F_SETFD, 0);
    recording::SpawnOptions options;
    options.env = program_env(program, raw, theirs.fd, planned ? region->fd() : -1);
    options.stdin_fd = null_in.fd;
    options.stdout_fd = null_out.fd;
    options.stderr_fd = err.fd;
    try {
      pid = recording::spawn(program.command, options);
    } catch (const recording::SpawnError& e) {
      if (planned) fcntl(region->fd(), F_SETFD, FD_CLOEXEC);
      throw InputError(std::string("racepred: error: ") + e.what());
    }
    if (planned) fcntl(region->fd(), F_SETFD, FD_CLOEXEC);
  }
  // The program's end: a fresh process inherited it, the fork server holds a copy until its
  // execution has ended (then it sends the wait status over the channel and closes it).
  ::close(theirs.fd);
  theirs.fd = -1;

  ExecutionResult result;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<int64_t>(program.timeout_seconds * 1000));
  std::vector<char> buf(sizeof(ch::ChoiceMsg) + ch::kMaxChoiceThreads * sizeof(ch::ChoiceThread) +
                        16384);
  // The choice points the runtime planned, read from the region in order: the chooser is told
  // each and must choose as the runtime did.
  uint64_t drained = 0;
  uint64_t drained_bytes = 0;
  auto drain = [&] {
    if (!planned) return;
    const ch::PlanHeader& h = *region->header();
    const uint64_t records = __atomic_load_n(&h.records, __ATOMIC_ACQUIRE);
    const char* base = reinterpret_cast<const char*>(&h);
    // Bounds from racepred's own copies: the program can write the region.
    const uint64_t end = region->size();
    for (; drained < records; ++drained) {
      const uint64_t at = region->records_offset() + drained_bytes;
      ch::PointRecord r;
      if (at + sizeof r > end) break;
      std::memcpy(&r, base + at, sizeof r);
      const size_t size = ch::plan_record_size(r.n);
      if (r.n == 0 || r.n > ch::kMaxChoiceThreads || at + size > end) break;
      ChoicePoint point;
      point.current = r.current;
      point.current_op = r.current_op;
      point.timeouts = r.timeouts != 0;
      point.seq = r.seq;
      point.candidates.reserve(r.n);
      for (uint32_t i = 0; i < r.n; ++i) {
        ch::ChoiceThread t;
        std::memcpy(&t, base + at + sizeof r + i * sizeof t, sizeof t);
        point.candidates.push_back({t.tid, t.op, t.obj, t.point, t.times_out != 0});
      }
      const size_t index = choose(point, result.points.size());
      if (index != r.chosen)
        throw std::logic_error("racepred: internal error: at choice point " +
                               std::to_string(result.points.size() + 1) +
                               " the runtime chose candidate " + std::to_string(r.chosen) +
                               " and the strategy " + std::to_string(index) +
                               " (or the program overwrote racepred's shared memory; run with "
                               "--round-trip to ask at every choice point)");
      point.chosen = point.candidates[index].tid;
      result.points.push_back(std::move(point));
      drained_bytes += size;
    }
  };
  // A fork of the server: its wait status comes over the channel (kServerWaited).
  bool waited = false;
  bool killed = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      if (killed) break;  // the server did not report the killed execution
      killed = true;
      if (forked) {
        pid = server->execution_pid(10000);
        deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      }
      if (pid > 0) ::kill(pid, SIGKILL);
      result.ending = Ending::Hang;
      result.timed_out = true;
      if (!forked) break;
      continue;
    }
    pollfd p{ours.fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count() > 1000 ? 1000 : left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = ::recv(ours.fd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every end closed: the program (or the server) has ended
    const size_t size = static_cast<size_t>(n);
    if (buf[0] == ch::kChoice && size >= sizeof(ch::ChoiceMsg)) {
      drain();  // the points planned before the runtime began to ask
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
      if (::send(ours.fd, &answer, sizeof answer, MSG_NOSIGNAL) != sizeof answer && !forked) break;
    } else if (buf[0] == ch::kBlocked && size >= sizeof(ch::BlockedMsg)) {
      result.ending = Ending::Deadlock;
      result.blocked.assign(buf.data() + sizeof(ch::BlockedMsg), size - sizeof(ch::BlockedMsg));
      result.blocked_threads = parse_blocked(result.blocked);
    } else if (buf[0] == ch::kHang) {
      result.ending = Ending::Hang;
    } else if (forked && buf[0] == ch::kServerWaited && size == sizeof(ch::ServerMsg)) {
      ch::ServerMsg m;
      std::memcpy(&m, buf.data(), sizeof m);
      result.status = static_cast<int>(m.value);
      waited = true;
      break;
    }
  }
  if (forked) {
    pid = server->execution_pid(10000);
    if (!waited && pid <= 0 && !killed && result.points.empty()) {
      // The server could not fork: this execution runs as a fresh process.
      server->stop();
      return run_execution(program, raw, choose, nullptr, plan, raw_fd);
    }
    if (!waited) {  // the server is gone or did not report the execution
      if (pid > 0) ::kill(pid, SIGKILL);
      server->stop();
      result.status = SIGKILL;  // the wait status of a process killed by SIGKILL
    }
  } else {
    result.status = recording::wait_for(pid);
  }
  drain();
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
  result.recorded_in_fd = forked && into_fd;
  result.recorded = result.recorded_in_fd ? ::fstat(raw_fd, &st) == 0 && st.st_size > 0
                                          : ::stat(raw.c_str(), &st) == 0;
  return result;
}

}  // namespace racepred::explore
