// RapidBin (docs/FORMATS.md, "RapidBin"): the binary trace format of RAPID's parse/bin, used by
// deadlock predictors (SPDOffline) and written by Wasmgrind. Big-endian throughout:
//   header: int16 threads, int32 locks, int32 variables, int64 events (18 bytes)
//   event:  int64; bits 0-9 thread, 10-13 op, 14-47 target (decor), 48-62 location, 63 unused
// Ops: 0 acq, 1 rel, 2 r, 3 w, 4 fork, 5 join, 6 begin, 7 end, 8 req, 9 branch (req is a lock
// request, racepred's req; begin, end and branch are skipped).
#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <map>
#include <vector>

#include "racepred/io/format_impl.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::io {
namespace {

constexpr unsigned kOpShift = kRapidBinThreadBits;
constexpr unsigned kDecorShift = kOpShift + kRapidBinOpBits;
constexpr unsigned kLocationShift = kDecorShift + kRapidBinDecorBits;
constexpr uint64_t kThreadMask = (uint64_t{1} << kRapidBinThreadBits) - 1;
constexpr uint64_t kOpMask = (uint64_t{1} << kRapidBinOpBits) - 1;
constexpr uint64_t kDecorMask = (uint64_t{1} << kRapidBinDecorBits) - 1;
constexpr uint64_t kLocationMask = (uint64_t{1} << kRapidBinLocationBits) - 1;

constexpr std::array<std::string_view, 4> kSkipped = {"begin", "end", "req", "branch"};

// Number -> symbol id for one name space: the name (PREFIX<number>) is formatted and interned
// once, on first sight; afterwards an event costs one array load (no string, no hashing).
class NumberedIds {
 public:
  NumberedIds(SymbolTable& table, char prefix) : table_(table), prefix_(prefix) {}
  uint32_t get(uint64_t n) {
    if (n < ids_.size() && ids_[n] != kNone) return ids_[n];
    char buf[24];
    const uint32_t id = table_.intern(numbered_name(prefix_, n, buf));
    if (n < kDenseLimit) {
      if (n >= ids_.size()) ids_.resize(std::max<size_t>(n + 1, ids_.size() * 2), kNone);
      ids_[n] = id;
    }
    return id;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint64_t kDenseLimit = uint64_t{1} << 24;  // larger ids: interned each time
  SymbolTable& table_;
  char prefix_;
  std::vector<uint32_t> ids_;
};

uint64_t load_be(const unsigned char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

class RapidBinParser {
 public:
  RapidBinParser(std::string_view name, const ReadOptions& options, Symbols& symbols,
                 EventConsumer& consumer, ReadSummary& summary)
      : name_(name),
        lenient_(options.lenient),
        symbols_(symbols),
        consumer_(consumer),
        summary_(summary),
        threads_(symbols.threads, 'T'),
        variables_(symbols.variables, 'V'),
        locks_(symbols.locks, 'L') {}

  void feed(std::string_view data) {
    const auto* p = reinterpret_cast<const unsigned char*>(data.data());
    size_t n = data.size();
    // Complete the header, then a pending partial event, from the front of the block.
    while (n > 0 && (header_used_ < kRapidBinHeader || pending_used_ > 0)) {
      if (header_used_ < kRapidBinHeader) {
        const size_t take = std::min(n, kRapidBinHeader - header_used_);
        std::memcpy(header_ + header_used_, p, take);
        header_used_ += take;
        p += take;
        n -= take;
        offset_ += take;
        if (header_used_ == kRapidBinHeader) read_header();
      } else {
        const size_t take = std::min(n, size_t{8} - pending_used_);
        std::memcpy(pending_ + pending_used_, p, take);
        pending_used_ += take;
        p += take;
        n -= take;
        if (pending_used_ == 8) {
          pending_used_ = 0;
          event(load_be(pending_, 8));
          offset_ += 8;
        }
      }
    }
    for (; n >= 8; p += 8, n -= 8, offset_ += 8) event(load_be(p, 8));
    std::memcpy(pending_, p, n);
    pending_used_ = n;
  }

  void finish() {
    if (header_used_ < kRapidBinHeader)
      error(0, "truncated header: RapidBin starts with an 18-byte header, the input has " +
                   std::to_string(header_used_) + " bytes");
    if (pending_used_ > 0)
      error(offset_, "truncated event: " + std::to_string(pending_used_) +
                         " bytes after the last whole 8-byte event");
    if (events_ != declared_events_)
      error(kRapidBinHeader - 8, "the header declares " + std::to_string(declared_events_) +
                                     " events, the input holds " + std::to_string(events_));
    summary_.lines = 0;
    summary_.event_lines = events_;
    summary_.delivered = delivered_;
    for (size_t i = 0; i < kSkipped.size(); ++i)
      if (skipped_[i]) summary_.skipped_ops[std::string(kSkipped[i])] += skipped_[i];
  }

 private:
  void read_header() {
    // RAPID and Wasmgrind mask the sign bits of the counts; so does racepred.
    declared_events_ = load_be(header_ + 10, 8) & 0x7FFFFFFFFFFFFFFF;
  }

  void error(uint64_t at, const std::string& message) {
    std::string text = std::string(name_) + ": byte " + std::to_string(at) + ": error: " + message;
    if (!lenient_) throw InputError(text);
    ++summary_.malformed;
    if (summary_.malformed_examples.size() < kMalformedExamples)
      summary_.malformed_examples.push_back(std::move(text));
  }

  void event(uint64_t word) {
    // Checked at once, not at the end: an endless input (/dev/zero) must not decode forever.
    if (++events_ > declared_events_)
      throw InputError(std::string(name_) + ": byte " + std::to_string(offset_) +
                       ": error: the header declares " + std::to_string(declared_events_) +
                       " events, the input holds more");
    const uint64_t thread = word & kThreadMask;
    const uint64_t op = word >> kOpShift & kOpMask;
    const uint64_t decor = word >> kDecorShift & kDecorMask;
    const uint64_t location = word >> kLocationShift & kLocationMask;
    if (word >> 63) {
      error(offset_, "event " + std::to_string(events_) + ": the unused bit 63 is set");
      return;
    }
    if (op >= 6 && op != 8) {
      if (op < 10) {
        ++skipped_[op - 6];
        return;
      }
      error(offset_, "event " + std::to_string(events_) + ": unknown operation code " +
                         std::to_string(op) + " (expected 0-9)");
      return;
    }
    static constexpr Op kOps[] = {Op::Acquire, Op::Release, Op::Read, Op::Write,  Op::Fork,
                                  Op::Join,    Op::Read,    Op::Read, Op::Request};
    Event e;
    e.op = kOps[op];
    e.thread = threads_.get(thread);
    e.target = e.op == Op::Read || e.op == Op::Write ? variables_.get(decor)
               : e.op == Op::Acquire || e.op == Op::Release || e.op == Op::Request
                   ? locks_.get(decor)
                   : threads_.get(decor);
    e.location = location_id(location);
    ++delivered_;
    consumer_.on_event(events_, e, 0);
  }

  uint32_t location_id(uint64_t location) {
    if (location_ids_.empty()) location_ids_.assign(kLocationMask + 1, UINT32_MAX);
    uint32_t& id = location_ids_[location];
    if (id == UINT32_MAX) {
      char buf[24];
      const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, location);
      (void)ec;
      id = symbols_.locations.intern(std::string_view(buf, static_cast<size_t>(end - buf)));
    }
    return id;
  }

  std::string_view name_;
  bool lenient_;
  Symbols& symbols_;
  EventConsumer& consumer_;
  ReadSummary& summary_;
  unsigned char header_[kRapidBinHeader];
  size_t header_used_ = 0;
  unsigned char pending_[8];
  size_t pending_used_ = 0;
  uint64_t offset_ = 0;  // of the next whole event
  uint64_t declared_events_ = 0;
  uint64_t events_ = 0;
  uint64_t delivered_ = 0;
  std::array<uint64_t, kSkipped.size()> skipped_{};
  NumberedIds threads_, variables_, locks_;
  std::vector<uint32_t> location_ids_;  // location number -> symbol id
};

void put_be(Output& out, uint64_t v, size_t n) {
  char bytes[8];
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>(v >> (8 * (n - 1 - i)) & 0xFF);
  out.put(std::string_view(bytes, n));
}

}  // namespace

void read_rapidbin(Input& in, std::string_view name, const ReadOptions& options, Symbols& symbols,
                   EventConsumer& consumer, ReadSummary& summary) {
  RapidBinParser parser(name, options, symbols, consumer, summary);
  if (in.stream) {
    for (std::string_view block = in.stream->next_bytes(); !block.empty();
         block = in.stream->next_bytes())
      parser.feed(block);
  } else {
    parser.feed(in.text);
  }
  parser.finish();
}

void write_rapidbin(const Trace& trace, const WriteOptions& options, const std::string& path) {
  LossReport loss("rapidbin");
  loss.reject_read_locks(trace);
  loss.reject_sync_ops(trace);
  const Symbols& s = trace.symbols;
  const std::vector<uint64_t> threads = numbers_for(s.threads, 'T', kThreadMask, "thread", loss);
  const std::vector<uint64_t> variables =
      numbers_for(s.variables, 'V', kDecorMask, "variable", loss);
  const std::vector<uint64_t> locks = numbers_for(s.locks, 'L', kDecorMask, "lock", loss);
  // Locations are numbers below 2^15.
  std::vector<uint64_t> locations(s.locations.size());
  for (uint32_t id = 0; id < s.locations.size(); ++id) {
    const std::string_view name = s.locations.name(id);
    uint64_t n = 0;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
    const bool plain = ec == std::errc() && end == name.data() + name.size() &&
                       (name.size() == 1 || name[0] != '0') && n <= kLocationMask;
    if (!plain) {
      loss.add("location " + quoted_text(name) + " is not a number up to " +
               std::to_string(kLocationMask) + ": the locations would be numbered anew");
      for (uint32_t i = 0; i < s.locations.size(); ++i) locations[i] = i;
      break;
    }
    locations[id] = n;
  }
  for (uint64_t t : threads)
    if (t > kThreadMask)
      loss.impossible("more than " + std::to_string(kThreadMask + 1) +
                      " threads (RapidBin's thread field has 10 bits)");
  for (uint64_t l : locations)
    if (l > kLocationMask)
      loss.impossible("more than " + std::to_string(kLocationMask + 1) +
                      " distinct locations (RapidBin's location field has 15 bits)");
  if (s.locks.size() > 0x7FFFFFFF || s.variables.size() > 0x7FFFFFFF)
    loss.impossible("more than 2^31-1 locks or variables");
  loss.check(options);

  // Header counts as Wasmgrind writes them: distinct threads (performers and fork/join
  // targets), locks and variables that occur in events.
  std::vector<bool> thread_used(s.threads.size()), lock_used(s.locks.size()),
      variable_used(s.variables.size());
  for (const Event& e : trace.events) {
    thread_used[e.thread] = true;
    if (e.is_access())
      variable_used[e.target] = true;
    else if (e.op == Op::Acquire || e.op == Op::Release || e.op == Op::Request)
      lock_used[e.target] = true;
    else
      thread_used[e.target] = true;
  }
  const auto count = [](const std::vector<bool>& v) {
    return static_cast<uint64_t>(std::count(v.begin(), v.end(), true));
  };
  Output out(path);
  put_be(out, count(thread_used), 2);
  put_be(out, count(lock_used), 4);
  put_be(out, count(variable_used), 4);
  put_be(out, trace.size(), 8);
  // racepred Op -> RapidBin op (read locks and send/recv are rejected above).
  static constexpr uint64_t kCodes[] = {2, 3, 0, 1, 4, 5, 0, 0, 0, 0, 8, 0};
  static_assert(std::size(kCodes) == kOpCount);
  for (const Event& e : trace.events) {
    const bool lock = e.op == Op::Acquire || e.op == Op::Release || e.op == Op::Request;
    const std::vector<uint64_t>& ids = e.is_access() ? variables : lock ? locks : threads;
    const uint64_t word = threads[e.thread] | kCodes[static_cast<int>(e.op)] << kOpShift |
                          ids[e.target] << kDecorShift | locations[e.location] << kLocationShift;
    put_be(out, word, 8);
  }
  out.close();
}

}  // namespace racepred::io
