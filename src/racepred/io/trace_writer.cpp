#include "racepred/io/trace_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "racepred/io/line_reader.hpp"
#include "racepred/trace/error.hpp"
#include "racepred/trace/printable.hpp"

namespace racepred::io {

Output::Output(const std::string& path)
    : display_(path.empty() || path == "-" ? "<stdout>" : path) {
  if (path.empty() || path == "-") {
    fd_ = STDOUT_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw InputError(path + ": error: cannot open for writing: " + std::strerror(errno));
    owns_ = true;
  }
  buffer_.reserve(kFlushAt);
}

Output::~Output() {
  try {
    close();
  } catch (...) {  // close() explicitly to see write errors
  }
}

void Output::put_number(uint64_t n) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  (void)ec;
  put(std::string_view(buf, static_cast<size_t>(end - buf)));
}

void Output::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      buffer_.clear();
      throw InputError(display_ + ": error: cannot write: " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
}

void Output::close() {
  if (fd_ < 0) return;
  flush();
  const int fd = fd_;
  fd_ = -1;
  if (owns_ && ::close(fd) != 0)
    throw InputError(display_ + ": error: cannot write: " + std::strerror(errno));
}

void LossReport::check(const WriteOptions& options) const {
  if (items_.empty() || options.allow_loss) return;
  std::string message = "converting to " + format_ + " would lose information:";
  for (const std::string& item : items_) message += "\n  - " + item;
  message += "\n(pass --allow-loss to convert anyway)";
  throw UsageError(message);
}

void LossReport::impossible(const std::string& why) const {
  throw UsageError("cannot convert to " + format_ + ": " + why);
}

void LossReport::reject_read_locks(const Trace& trace) const {
  for (size_t i = 0; i < trace.size(); ++i)
    if (is_read_mode_op(trace.events[i].op))
      impossible("event " + std::to_string(trace.ids[i]) + " (" +
                 printable(trace.to_std(trace.events[i])) +
                 (trace.events[i].op == Op::ReadRequest ? ") requests" : ") takes") +
                 " a lock in read mode, which the format cannot express (only std and "
                 "binary have read-write locks)");
}

void LossReport::reject_sync_ops(const Trace& trace) const {
  for (size_t i = 0; i < trace.size(); ++i)
    if (is_sync_op(trace.events[i].op))
      impossible("event " + std::to_string(trace.ids[i]) + " (" +
                 printable(trace.to_std(trace.events[i])) +
                 ") is a synchronisation order (send/recv), which the format cannot express "
                 "(only std and binary have them)");
}

void LossReport::reject_requests(const Trace& trace) const {
  for (size_t i = 0; i < trace.size(); ++i)
    if (is_request_op(trace.events[i].op))
      impossible("event " + std::to_string(trace.ids[i]) + " (" +
                 printable(trace.to_std(trace.events[i])) +
                 ") is a lock request (req), which the format cannot express (only std and "
                 "binary have them)");
}

std::vector<uint64_t> numbers_for(const SymbolTable& table, char prefix, uint64_t max,
                                  std::string_view what, LossReport& loss) {
  std::vector<uint64_t> numbers(table.size());
  for (uint32_t id = 0; id < table.size(); ++id) {
    const std::optional<uint64_t> n = number_of_name(table.name(id), prefix);
    if (!n || *n > max) {
      loss.add(std::string(what) + " name " + quoted_text(table.name(id)) + " is not " + prefix +
               "<number>" + (n ? " with a number up to " + std::to_string(max) : std::string()) +
               ": the " + std::string(what) + "s would be numbered anew (" + prefix + "0, " +
               prefix + "1, ... in order of appearance)");
      for (uint32_t i = 0; i < table.size(); ++i) numbers[i] = i;
      return numbers;
    }
    numbers[id] = *n;
  }
  return numbers;
}

bool locations_are_line_numbers(const Trace& trace) {
  char buf[24];
  for (size_t i = 0; i < trace.size(); ++i) {
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, i + 1);
    (void)ec;
    if (trace.location_name(trace.events[i].location) !=
        std::string_view(buf, static_cast<size_t>(end - buf)))
      return false;
  }
  return true;
}

std::optional<std::string_view> name_with(const SymbolTable& table, std::string_view bad,
                                          bool no_space) {
  for (uint32_t id = 0; id < table.size(); ++id) {
    const std::string_view name = table.name(id);
    for (char c : name)
      if (bad.find(c) != std::string_view::npos ||
          (no_space && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f')))
        return name;
  }
  return std::nullopt;
}

// Shared helpers of the line readers (line_reader.hpp).

std::string_view numbered_name(char prefix, uint64_t n, char (&buf)[24]) {
  buf[0] = prefix;
  const auto [end, ec] = std::to_chars(buf + 1, buf + sizeof buf, n);
  (void)ec;
  return {buf, static_cast<size_t>(end - buf)};
}

std::string_view line_number_name(uint64_t line_number, char (&buf)[24]) {
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, line_number);
  (void)ec;
  return {buf, static_cast<size_t>(end - buf)};
}

std::optional<uint64_t> number_of_name(std::string_view name, char prefix) {
  if (name.size() < 2 || name.size() > 21 || name[0] != prefix) return std::nullopt;
  const std::string_view digits = name.substr(1);
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return n;
}

std::string parse_unsigned(std::string_view field, size_t at, const char* what, uint64_t max,
                           uint64_t& value, size_t& column) {
  if (field.empty()) {
    column = at + 1;
    return std::string("empty ") + what;
  }
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] < '0' || field[i] > '9') {
      column = at + i + 1;
      return std::string(what) + ": expected an unsigned integer";
    }
  }
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || value > max) {
    column = at + 1;
    return std::string(what) + ": number out of range (at most " + std::to_string(max) + ")";
  }
  return {};
}

std::string quoted_text(std::string_view s) {
  std::string out = "'";
  out.append(s.substr(0, 40));
  if (s.size() > 40) out += "...";
  out += '\'';
  return out;
}

}  // namespace racepred::io
