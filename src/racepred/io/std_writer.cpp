#include "racepred/io/std_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "racepred/io/std_parser.hpp"
#include "racepred/trace/error.hpp"

namespace racepred {

namespace {
constexpr size_t kBufferSize = size_t{1} << 20;

std::string display_name(const std::string& path) {
  return path.empty() || path == "-" ? "<stdout>" : path;
}
}  // namespace

StdWriter::StdWriter(const Symbols& symbols, const std::string& path)
    : symbols_(symbols), path_(path), buffer_(kBufferSize) {
  if (path.empty() || path == "-") {
    fd_ = STDOUT_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw InputError(path + ": error: cannot open for writing: " + std::strerror(errno));
    owns_fd_ = true;
  }
}

StdWriter::~StdWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() explicitly to see write errors
  }
}

namespace {
// "acq(" etc., padded.
struct OpSlot {
  char text[16];
  uint8_t size;
};
constexpr OpSlot kOpSlots[] = {{"r(", 2},    {"w(", 2},    {"acq(", 4},  {"rel(", 4},
                               {"fork(", 5}, {"join(", 5}, {"racq(", 5}, {"rrel(", 5},
                               {"send(", 5}, {"recv(", 5}, {"req(", 4},  {"rreq(", 5}};
static_assert(std::size(kOpSlots) == kOpCount);
}  // namespace

const StdWriter::Slot& StdWriter::slot(Space space, uint32_t id) {
  std::vector<Slot>& slots = slots_[space];
  if (id >= slots.size()) {
    const SymbolTable& table = space == kThreads     ? symbols_.threads
                               : space == kVariables ? symbols_.variables
                               : space == kLocks     ? symbols_.locks
                                                     : symbols_.locations;
    const size_t old = slots.size();
    slots.resize(std::max<size_t>(id + 1, table.size()));
    for (size_t i = old; i < slots.size(); ++i) {
      const std::string_view name = table.name(static_cast<uint32_t>(i));
      if (io::std_needs_escape(name, space == kThreads)) continue;  // slow path: escaped
      const char* tail = space == kThreads ? "|" : space == kLocations ? "\n" : ")|";
      const size_t tail_size = std::strlen(tail);
      if (name.size() + tail_size > sizeof(Slot::text)) continue;  // size 0: slow path
      name.copy(slots[i].text, name.size());
      std::memcpy(slots[i].text + name.size(), tail, tail_size);
      slots[i].size = static_cast<uint8_t>(name.size() + tail_size);
    }
  }
  return slots[id];
}

void StdWriter::on_event(EventId, const Event& e, uint32_t) {
  if (used_ + 4 * 16 > buffer_.size()) flush();
  if (e.location >= symbols_.locations.size()) return write_slow(e);
  const Space space = e.op == Op::Read || e.op == Op::Write ? kVariables
                      : targets_lock(e.op)                  ? kLocks
                                                            : kThreads;
  // Copies: a later slot() call may grow the vector the earlier slot lives in.
  const Slot target = slot(space, e.target);
  const Slot thread = slot(kThreads, e.thread);
  const Slot location = slot(kLocations, e.location);
  if (thread.size == 0 || target.size == 0 || location.size == 0) return write_slow(e);
  char* out = buffer_.data() + used_;
  // Fixed-size copies (one vector move each); the slack checked above covers the overshoot.
  std::memcpy(out, thread.text, 16);
  out += thread.size;
  // The thread slot ends with '|' but target slots end with ")|": for fork/join the target is
  // a thread name, whose slot ends with '|' only, so the ')' is written separately below.
  const OpSlot& op = kOpSlots[static_cast<int>(e.op)];
  std::memcpy(out, op.text, 16);
  out += op.size;
  if (space == kThreads) {
    std::memcpy(out, target.text, 16);
    out += target.size - 1;  // drop the '|'
    *out++ = ')';
    *out++ = '|';
  } else {
    std::memcpy(out, target.text, 16);
    out += target.size;
  }
  std::memcpy(out, location.text, 16);
  out += location.size;
  used_ = static_cast<size_t>(out - buffer_.data());
}

void StdWriter::write_slow(const Event& e) {
  const std::string_view thread = symbols_.threads.name(e.thread);
  std::string_view target;
  switch (e.op) {
    case Op::Read:
    case Op::Write:
      target = symbols_.variables.name(e.target);
      break;
    case Op::Acquire:
    case Op::Release:
    case Op::ReadAcquire:
    case Op::ReadRelease:
    case Op::Send:
    case Op::Recv:
    case Op::Request:
    case Op::ReadRequest:
      target = symbols_.locks.name(e.target);
      break;
    case Op::Fork:
    case Op::Join:
      target = symbols_.threads.name(e.target);
      break;
  }
  const std::string_view location =
      e.location < symbols_.locations.size() ? symbols_.locations.name(e.location) : "0";
  // Escapes take at most 4 bytes per byte of a name.
  const size_t need = 4 * (thread.size() + target.size() + location.size()) + 12;
  if (used_ + need > buffer_.size()) {
    flush();
    if (need > buffer_.size()) buffer_.resize(need);
  }
  const auto put_name = [&](std::string_view name, bool is_thread) {
    used_ = static_cast<size_t>(io::std_escape(name, is_thread, buffer_.data() + used_) -
                                buffer_.data());
  };
  put_name(thread, true);
  buffer_[used_++] = '|';
  put(op_name(e.op));
  buffer_[used_++] = '(';
  put_name(target, e.op == Op::Fork || e.op == Op::Join);
  buffer_[used_++] = ')';
  buffer_[used_++] = '|';
  put_name(location, false);
  buffer_[used_++] = '\n';
}

void StdWriter::flush() {
  size_t done = 0;
  while (done < used_) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, used_ - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      used_ = 0;
      throw InputError(display_name(path_) + ": error: cannot write: " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  bytes_ += used_;
  used_ = 0;
}

void StdWriter::close() {
  if (fd_ < 0) return;
  flush();
  if (owns_fd_ && ::close(fd_) != 0) {
    fd_ = -1;
    throw InputError(display_name(path_) + ": error: cannot write: " + std::strerror(errno));
  }
  fd_ = -1;
}

std::string to_std_text(const Trace& trace) {
  std::string out;
  out.reserve(trace.size() * 18);
  std::string name;
  const auto append = [&](std::string_view n, bool thread) {
    name.resize(4 * n.size());
    out.append(name.data(),
               static_cast<size_t>(io::std_escape(n, thread, name.data()) - name.data()));
  };
  for (const Event& e : trace.events) {
    append(trace.thread_name(e.thread), true);
    out += '|';
    out += op_name(e.op);
    out += '(';
    append(trace.target_name(e), e.op == Op::Fork || e.op == Op::Join);
    out += ")|";
    append(e.location < trace.symbols.locations.size() ? trace.location_name(e.location)
                                                       : std::string_view("0"),
           false);
    out += '\n';
  }
  return out;
}

}  // namespace racepred
