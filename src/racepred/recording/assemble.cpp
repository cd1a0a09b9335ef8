#include "racepred/recording/assemble.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/merge.hpp"
#include "racepred/trace/error.hpp"

namespace racepred::recording {

namespace fmt = racepred::format;

namespace {

// What the accesses of one variable (a start address) were: its largest fixed size, and the one
// thread that accessed it (kShared: several).
struct VarUse {
  static constexpr uint32_t kNone = UINT32_MAX, kShared = UINT32_MAX - 1;
  uint32_t owner = kNone;
  uint32_t first = UINT32_MAX;  // the location index of its first access
  uint8_t largest = 0;
};

bool key_less(const Key& a, const Key& b) {
  return a.instance != b.instance ? a.instance < b.instance : a.addr < b.addr;
}

// The first pass's events, as the second pass needs them: each with its thread, variable or
// lock, location index and access size, so that the second pass neither merges nor decodes the
// records again, nor replays the heap and the call stacks. Written in chunks (1 MiB unless the
// caller says otherwise), held in memory while there is one, then in an unlinked temporary
// file (TMPDIR, else /tmp), each chunk after its size:
// what the conversion holds stays bounded, whatever the length of the recording.
// An event takes 3-6 bytes: a byte with its op, size code and whether its thread is the
// previous event's; its thread if not (varint); its target as a zigzag varint of the difference
// from the previous event's; its location index (varint); for an access of a range, the range's
// start (instance, address) and length (varints).
class EventSpill {
 public:
  static constexpr size_t kMaxEntry = 1 + 5 + 10 + 5 + 3 * 10;

  // `chunk`: bytes per chunk (at least kMaxEntry).
  explicit EventSpill(size_t chunk)
      : chunk_size_(std::max(chunk, kMaxEntry)),
        capacity_(chunk_size_ + kMaxEntry),
        chunk_(new uint8_t[capacity_]) {}  // not zero-filled: a small conversion touches few pages
  ~EventSpill() {
    if (fd_ >= 0) ::close(fd_);
  }
  EventSpill(const EventSpill&) = delete;
  EventSpill& operator=(const EventSpill&) = delete;

  [[gnu::always_inline]] void put(const Event& e, uint8_t code) {
    if (at_ >= chunk_size_) [[unlikely]]
      flush();
    uint8_t* p = chunk_.get() + at_;
    const bool same = e.thread == thread_;
    *p++ = static_cast<uint8_t>(static_cast<uint8_t>(e.op) | code << 4 | (same ? 0x80 : 0));
    if (!same) {
      p = fmt::put_varint(p, e.thread);
      thread_ = e.thread;
    }
    p = fmt::put_varint(p, fmt::zigzag(int64_t{e.target} - int64_t{target_}));
    target_ = e.target;
    p = fmt::put_varint(p, e.location);
    at_ = static_cast<size_t>(p - chunk_.get());
  }
  // An access of [start, start + length).
  void put_range(const Event& e, const Key& start, uint64_t length) {
    put(e, fmt::kSizeRange);
    uint8_t* p = chunk_.get() + at_;
    p = fmt::put_varint(p, start.instance);
    p = fmt::put_varint(p, start.addr);
    p = fmt::put_varint(p, length);
    at_ = static_cast<size_t>(p - chunk_.get());
  }

  // Every event put, in order, to `f(event, code, range start or nullptr, range length)`;
  // then it is empty.
  template <typename F>
  void replay(F&& f) {
    if (fd_ >= 0) {
      flush();
      if (::lseek(fd_, 0, SEEK_SET) != 0) fail("read");
      uint64_t left = written_;
      while (left) {
        uint32_t size = 0;
        read_exactly(reinterpret_cast<uint8_t*>(&size), sizeof size);
        if (size > capacity_ || size + uint64_t{sizeof size} > left) throw InputError(kLost);
        read_exactly(chunk_.get(), size);
        left -= size + sizeof size;
        replay_chunk(size, f);
      }
      ::close(fd_);
      fd_ = -1;
    } else {
      replay_chunk(at_, f);
    }
    at_ = 0;
  }
  // Bytes written to the temporary file.
  uint64_t file_bytes() const { return written_; }

 private:
  static constexpr const char* kLost =
      "racepred: error: the conversion's temporary file lost events (changed by another program?)";
  template <typename F>
  void replay_chunk(size_t size, F&& f) {
    const uint8_t* p = chunk_.get();
    const uint8_t* const end = p + size;
    uint32_t thread = 0, target = 0;
    uint64_t v = 0;
    while (p < end) {
      const uint8_t h = *p++;
      if (!(h & 0x80)) {
        if (!(p = fmt::get_varint(p, end, v))) throw InputError(kLost);
        thread = static_cast<uint32_t>(v);
      }
      if (!(p = fmt::get_varint(p, end, v))) throw InputError(kLost);
      target = static_cast<uint32_t>(int64_t{target} + fmt::unzigzag(v));
      if (!(p = fmt::get_varint(p, end, v))) throw InputError(kLost);
      const Event e{static_cast<Op>(h & 0x0f), thread, target, static_cast<uint32_t>(v)};
      const uint8_t code = (h >> 4) & 7;
      if (code == fmt::kSizeRange && e.is_access()) [[unlikely]] {
        Key start;
        uint64_t length = 0;
        if (!(p = fmt::get_varint(p, end, start.instance)) ||
            !(p = fmt::get_varint(p, end, start.addr)) || !(p = fmt::get_varint(p, end, length)))
          throw InputError(kLost);
        f(e, code, &start, length);
      } else {
        f(e, code, nullptr, 0);
      }
    }
  }
  // The chunk to the file, after its size; the next chunk starts from no previous event.
  [[gnu::noinline]] void flush() {
    if (fd_ < 0) open_file();
    const uint32_t size = static_cast<uint32_t>(at_);
    write_all(reinterpret_cast<const uint8_t*>(&size), sizeof size);
    write_all(chunk_.get(), at_);
    at_ = 0;
    thread_ = 0;
    target_ = 0;
  }
  void write_all(const uint8_t* p, size_t n) {
    while (n) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail("write");
      p += w;
      n -= static_cast<size_t>(w);
      written_ += static_cast<uint64_t>(w);
    }
  }
  void read_exactly(uint8_t* p, size_t n) {
    while (n) {
      const ssize_t r = ::read(fd_, p, n);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) fail("read");
      if (r == 0) throw InputError(kLost);
      p += r;
      n -= static_cast<size_t>(r);
    }
  }
  void open_file() {
    const char* dir = std::getenv("TMPDIR");
    dir_ = dir && *dir ? dir : "/tmp";
    std::string path = dir_ + "/racepred-events.XXXXXX";
    fd_ = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd_ < 0) fail("make");
    ::unlink(path.c_str());
  }
  [[noreturn]] void fail(const char* what) const {
    throw InputError(std::string("racepred: error: cannot ") + what + " a temporary file in " +
                     dir_ + " (the conversion keeps its events there): " + std::strerror(errno));
  }

  size_t chunk_size_;
  size_t capacity_;
  std::unique_ptr<uint8_t[]> chunk_;
  size_t at_ = 0;
  uint32_t thread_ = 0, target_ = 0;  // of the chunk's previous event
  int fd_ = -1;
  std::string dir_;
  uint64_t written_ = 0;
};

}  // namespace

class Assembly::Impl {
 public:
  Impl(const RawRecording& recording, uint64_t cut, size_t spill_chunk)
      : recording_(recording), cut_(cut), depth_(recording.stack_depth), spill_(spill_chunk) {
    if (depth_) {
      out_.caller_nodes.emplace_back();  // node 0: no stack
      // The call-stack caches only with stacks (144 KB that explore's small recordings, one per
      // execution, would clear for nothing).
      stack_loc_cache_.resize(size_t{1} << kStackLocBits);
      call_cache_.resize(size_t{1} << kCallBits);
    }
  }

  void scan() {
    run();
    prepare();
  }
  void emit(EventBatchSink& sink) {
    // The first pass's events again, now that every variable is known.
    sink_ = &sink;
    batch_.reserve(kBatch);
    spill_.replay([&](const Event& e, uint8_t code, const Key* start, uint64_t length) {
      event(e, code, start, length);
    });
    if (!batch_.empty()) sink.on_events(batch_);
    batch_.clear();
  }
  Assembled& scanned() { return out_; }
  uint64_t peak_raw_bytes() const { return peak_raw_bytes_; }
  uint64_t spill_bytes() const { return spill_.file_bytes(); }

 private:
  // Per runtime thread id: the trace's thread id (UINT32_MAX until named) and the caller of
  // its next event (a kRawCaller record), or 0.
  // With stacks: its open calls as a path of the call trie (paths_), and the node of its
  // innermost depth - 1 of them (UINT32_MAX: to be looked up at its next event).
  struct PerThread {
    uint32_t id = UINT32_MAX;
    uint64_t caller = 0;
    uint32_t path = 0;  // paths_[0]: no open call
    uint32_t node = UINT32_MAX;
    uint32_t deeper = 0;  // calls past the bound of the path's depth (a runaway recursion)
    // Its last event's (pc, caller, node) and location index: loops repeat them.
    uint64_t last_pc = 0, last_caller = 0;
    uint32_t last_node = UINT32_MAX, last_index = 0;
  };
  // A path of the call trie: the open calls of a thread, outermost first, as (the path of its
  // callers, the return address of the innermost call). Its node (the innermost depth - 1 return
  // addresses) is looked up once per path, not once per event; a call and a return move a
  // thread along the trie without allocating. Both passes share the trie.
  struct Path {
    uint32_t parent = 0;
    uint32_t depth = 0;  // open calls
    uint64_t pc = 0;
    uint32_t node = UINT32_MAX;
    // The last call made from this path (loops call the same function again).
    uint64_t last_call = UINT64_MAX;
    uint32_t last_child = 0;
  };
  struct PathKeyHash {
    size_t operator()(const std::pair<uint32_t, uint64_t>& k) const {
      return mix(k.second ^ (uint64_t{k.first} << 40 | uint64_t{k.first} >> 24));
    }
  };
  struct StackLocKey {
    uint64_t pc, caller;
    uint32_t node;
    bool operator==(const StackLocKey&) const = default;
  };
  struct StackLocHash {
    size_t operator()(const StackLocKey& k) const {
      return mix(k.pc ^ mix(k.caller ^ (uint64_t{k.node} << 32)));
    }
  };
  struct PairHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& k) const {
      return mix(k.first ^ mix(k.second));
    }
  };
  static size_t mix(uint64_t h) {  // splitmix64's finaliser
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<size_t>(h ^ (h >> 31));
  }
  // The path of a call at `pc` from `from`: the path's last call (a loop calls the same
  // function again), else a direct-mapped cache (a loop that calls several functions in turn),
  // else the table.
  [[gnu::always_inline]] uint32_t call(uint32_t from, uint64_t pc) {
    Path& f = paths_[from];
    if (f.last_call == pc) return f.last_child;
    if (call_cache_.empty()) [[unlikely]]  // calls recorded without the stack depth's note
      call_cache_.resize(size_t{1} << kCallBits);
    CallSlot& slot =
        call_cache_[((pc ^ (uint64_t{from} << 32)) * 0x9E3779B97F4A7C15ULL) >> (64 - kCallBits)];
    if (slot.pc == pc && slot.from == from) [[likely]] {
      f.last_call = pc;
      return f.last_child = slot.child;
    }
    return call_slow(from, pc, slot);
  }
  struct CallSlot {
    uint64_t pc = UINT64_MAX;
    uint32_t from = UINT32_MAX, child = 0;
  };
  static constexpr unsigned kCallBits = 10;
  [[gnu::noinline]] uint32_t call_slow(uint32_t from, uint64_t pc, CallSlot& slot) {
    uint32_t child;
    if (auto it = path_ids_.find(std::pair{from, pc}); it != path_ids_.end()) {
      child = it->second;
    } else {
      child = static_cast<uint32_t>(paths_.size());
      path_ids_.emplace(std::pair{from, pc}, child);
      paths_.push_back(Path{from, paths_[from].depth + 1, pc});
    }
    slot = CallSlot{pc, from, child};
    paths_[from].last_call = pc;
    return paths_[from].last_child = child;
  }

  [[gnu::always_inline]] PerThread& state(uint32_t tid) {
    if (tid >= threads_.size()) [[unlikely]]
      grow_threads(tid);
    return threads_[tid];
  }
  [[gnu::noinline]] void grow_threads(uint32_t tid) { threads_.resize(size_t{tid} + 1); }
  // Code address -> location index, direct-mapped in front of loc_ids_ (code addresses never
  // change meaning, so no entry is ever stale).
  struct PcSlot {
    uint64_t pc = UINT64_MAX;
    uint32_t index = 0;
  };
  static constexpr unsigned kPcBits = 12;
  [[gnu::always_inline]] uint32_t cached_location_id(uint64_t pc) {
    PcSlot& slot = pc_cache_[(pc * 0x9E3779B97F4A7C15ULL) >> (64 - kPcBits)];
    if (slot.pc != pc) [[unlikely]]
      slot = PcSlot{pc, location_id(pc)};
    return slot.index;
  }
  uint32_t thread_of(uint32_t tid) {
    if (tid < threads_.size() && threads_[tid].id != UINT32_MAX) [[likely]]
      return threads_[tid].id;
    return name_thread(tid);
  }
  [[gnu::noinline]] uint32_t name_thread(uint32_t tid) {
    PerThread& t = state(tid);
    if (t.id == UINT32_MAX) {
      std::string name = "T";  // (not "T" + to_string: gcc 12 warns falsely, -Wrestrict)
      name += std::to_string(tid);
      t.id = out_.threads.intern(name);
    }
    return t.id;
  }
  uint32_t location_id(uint64_t pc) {
    auto [it, fresh] = loc_ids_.emplace(pc, static_cast<uint32_t>(out_.pcs.size()));
    if (fresh) out_.pcs.push_back(pc);
    return it->second;
  }
  // (pc, caller) -> location index: an event with a caller record has a location of its own.
  uint32_t caller_location_id(uint64_t pc, uint64_t caller) {
    auto [it, fresh] =
        caller_locs_.emplace(std::pair{pc, caller}, static_cast<uint32_t>(out_.pcs.size()));
    if (fresh) {
      out_.pcs.push_back(pc);
      out_.callers.push_back({it->second, caller});
    }
    return it->second;
  }
  // Stacks: a node per distinct list of callers; an event's location index is per (pc, caller,
  // node).
  uint32_t node_of(PerThread& t) {
    if (t.node != UINT32_MAX) return t.node;
    if (paths_[t.path].node == UINT32_MAX) paths_[t.path].node = path_node(t.path);
    return t.node = paths_[t.path].node;
  }
  [[gnu::noinline]] uint32_t path_node(uint32_t path) {
    // The outermost call is the return address into whatever started the thread's outermost
    // instrumented function (libc's start of main, the runtime's thread trampoline): not a
    // frame of the program, and ThreadSanitizer's stacks end at that function too.
    const uint32_t depth = paths_[path].depth;
    const size_t n = std::min<size_t>(depth ? depth - 1 : 0, depth_ - 1);
    std::vector<uint64_t> key;
    key.reserve(n);
    for (uint32_t p = path; key.size() < n; p = paths_[p].parent) key.push_back(paths_[p].pc);
    auto [it, fresh] = node_ids_.emplace(key, static_cast<uint32_t>(out_.caller_nodes.size()));
    if (fresh) {
      std::vector<uint32_t> frames;
      for (const uint64_t pc : key) frames.push_back(location_id(pc));
      out_.caller_nodes.push_back(std::move(frames));
    }
    return it->second;
  }
  // The location index of an event of thread `tid` at `pc` (with its caller record, or 0).
  [[gnu::always_inline]] uint32_t event_location(uint32_t tid, uint64_t pc, uint64_t caller) {
    PerThread& t = state(tid);
    if (!depth_) {
      if (caller) return caller_location_id(pc, caller);
      if (pc != t.last_pc || t.last_node != 0) {  // (a loop repeats its thread's last location)
        t.last_pc = pc;
        t.last_node = 0;
        t.last_index = cached_location_id(pc);
      }
      return t.last_index;
    }
    const uint32_t node = node_of(t);
    if (node == t.last_node && pc == t.last_pc && caller == t.last_caller) return t.last_index;
    t.last_pc = pc;
    t.last_caller = caller;
    t.last_node = node;
    // A direct-mapped cache in front of the table: a loop's events come back to the same few
    // (code address, node) pairs.
    // (One multiply: the full hash of the table is a chain of four, on every event whose
    // stack or code address differs from its thread's previous one.)
    const StackLocKey key{pc, caller, node};
    StackLocSlot& slot =
        stack_loc_cache_[((pc ^ caller ^ (uint64_t{node} << 40 | uint64_t{node} >> 24)) *
                          0x9E3779B97F4A7C15ULL) >>
                         (64 - kStackLocBits)];
    if (slot.index != UINT32_MAX && slot.key == key) return t.last_index = slot.index;
    auto [it, fresh] = stack_locs_.try_emplace(key, static_cast<uint32_t>(out_.pcs.size()));
    if (fresh) {
      out_.pcs.push_back(pc);
      if (caller) out_.callers.push_back({it->second, caller});
      out_.location_nodes.resize(out_.pcs.size(), 0);
      out_.location_nodes[it->second] = node;
    }
    slot = StackLocSlot{key, it->second};
    return t.last_index = it->second;
  }
  // First pass: how variable v was accessed by `thread`, `bytes` wide (0: a range).
  // `location`: the access's location index.
  [[gnu::always_inline]] void use(uint32_t v, uint32_t thread, uint8_t bytes, uint32_t location) {
    if (v >= uses_.size()) [[unlikely]]
      uses_.resize(size_t{v} + 1);
    VarUse& u = uses_[v];
    if (u.owner != thread) [[unlikely]] {
      if (u.owner == VarUse::kNone) u.first = location;
      u.owner = u.owner == VarUse::kNone ? thread : VarUse::kShared;
    }
    if (bytes > u.largest) u.largest = bytes;
  }

  // Between the passes: what the second pass needs to expand accesses and mark sync objects.
  void prepare();

  // Second pass: an event of the trace (accesses of a benign range leave it).
  [[gnu::always_inline]] void put(const Event& e) {
    if (has_benign_ && e.is_access() && benign_[e.target]) return;
    batch_.push_back(e);
    if (batch_.size() == kBatch) [[unlikely]] {
      sink_->on_events(batch_);
      batch_.clear();
    }
  }
  // Second pass: an access of [start, start + length) whose own start is e.target (UINT32_MAX:
  // none, a free) is an access of its own start and of every variable that starts inside it and
  // that a thread other than e.thread accessed. Two accesses of different threads then share a
  // variable exactly when their bytes overlap: both contain the larger of their two starts,
  // which is one of them's own start, accessed by its thread. A range (a free of a block that
  // only one thread used) costs nothing for the variables only its own thread touches.
  void expand(Event e, const Key& start, uint64_t length) {
    const uint32_t own = e.target;
    auto it = std::lower_bound(starts_.begin(), starts_.end(), start,
                               [](const Start& a, const Key& b) { return key_less(a.key, b); });
    for (; it != starts_.end() && it->key.instance == start.instance &&
           it->key.addr - start.addr < length;
         ++it) {
      if (it->id != own && (it->id >= uses_.size() || uses_[it->id].owner == e.thread)) continue;
      e.target = it->id;
      put(e);
    }
  }
  // Second pass: the events of one access or lock operation. Every lock or sync event of an
  // initialised or destroyed sync object is preceded by a read of the object's variable. For a
  // request the read comes before the req, and the acquire that grants it (the thread's next
  // event: nothing else may follow a req in its thread) has no read of its own.
  [[gnu::always_inline]] void event(const Event& e, uint8_t code, const Key* range_start,
                                    uint64_t range_length) {
    if (targets_lock(e.op) && e.target < object_var_.size() &&
        object_var_[e.target] != UINT32_MAX && !grants_request(e))
      put(Event{Op::Read, e.thread, object_var_[e.target], e.location});
    if (!e.is_access())
      put(e);
    else if (code == fmt::kSizeRange)
      expand(e, *range_start, range_length);
    else if (fmt::size_bytes(code) > gap_[e.target])
      expand(e, variable_keys()[e.target], fmt::size_bytes(code));
    else
      put(e);
  }
  const std::vector<Key>& variable_keys() const { return out_.addresses.variables(); }
  // Whether e (a lock event of a sync object) is the acquire granting its thread's req or rreq;
  // notes a request for the acquire that follows it.
  bool grants_request(const Event& e) {
    if (e.thread >= requested_.size()) requested_.resize(e.thread + 1, UINT32_MAX);
    uint32_t& requested = requested_[e.thread];
    const bool grants = is_acquire_op(e.op) && requested == e.target;
    requested = is_request_op(e.op) ? e.target : UINT32_MAX;
    return grants;
  }

  void run();

  const RawRecording& recording_;
  const uint64_t cut_;
  const uint32_t depth_;
  Assembled out_;
  std::vector<PerThread> threads_;
  std::unordered_map<uint64_t, uint32_t> loc_ids_;
  std::unordered_map<std::pair<uint64_t, uint64_t>, uint32_t, PairHash> caller_locs_;
  std::map<std::vector<uint64_t>, uint32_t> node_ids_;  // (once per path of the trie)
  std::unordered_map<StackLocKey, uint32_t, StackLocHash> stack_locs_;
  struct StackLocSlot {
    StackLocKey key{};
    uint32_t index = UINT32_MAX;
  };
  static constexpr unsigned kStackLocBits = 12;
  std::vector<StackLocSlot> stack_loc_cache_;  // with stacks (depth_ > 0)
  std::vector<CallSlot> call_cache_;           // with stacks, or at the first call record
  std::vector<Path> paths_ = std::vector<Path>(1);
  std::unordered_map<std::pair<uint32_t, uint64_t>, uint32_t, PathKeyHash> path_ids_;
  std::vector<PcSlot> pc_cache_ = std::vector<PcSlot>(size_t{1} << kPcBits);
  uint64_t peak_raw_bytes_ = 0;

  // First pass: how each variable was accessed; the sync objects (key, variable id) the program
  // initialised or destroyed.
  std::vector<VarUse> uses_;
  std::vector<std::pair<Key, uint32_t>> sync_objects_;
  // For the second pass: the variables in address order; per variable the distance to the next
  // one's start in the same memory (capped at 255: a fixed-size access splits only when it is
  // larger); per lock id the variable of its sync object, or UINT32_MAX; benign variables.
  struct Start {
    Key key;
    uint32_t id;
  };
  std::vector<Start> starts_;
  std::vector<uint8_t> gap_;
  std::vector<uint32_t> object_var_;
  std::vector<uint32_t> requested_;  // per thread: the sync object its last lock event requested
  std::vector<bool> benign_;
  bool has_benign_ = false;
  // The first pass's events for the second; the second pass's batch for the sink.
  EventSpill spill_;
  std::vector<Event> batch_;
  EventBatchSink* sink_ = nullptr;
};

void Assembly::Impl::prepare() {
  const std::vector<Key>& keys = variable_keys();
  out_.first_access.assign(keys.size(), UINT32_MAX);
  for (size_t v = 0; v < keys.size() && v < uses_.size(); ++v)
    out_.first_access[v] = uses_[v].first;
  starts_.resize(keys.size());
  for (uint32_t v = 0; v < keys.size(); ++v) starts_[v] = Start{keys[v], v};
  std::sort(starts_.begin(), starts_.end(),
            [](const Start& a, const Start& b) { return key_less(a.key, b.key); });
  gap_.assign(keys.size(), 255);
  for (size_t i = 0; i + 1 < starts_.size(); ++i) {
    const Key &a = starts_[i].key, &b = starts_[i + 1].key;
    if (a.instance == b.instance && b.addr - a.addr < 255)
      gap_[starts_[i].id] = static_cast<uint8_t>(b.addr - a.addr);
  }
  if (!sync_objects_.empty()) {
    std::sort(sync_objects_.begin(), sync_objects_.end(),
              [](const auto& a, const auto& b) { return key_less(a.first, b.first); });
    const std::vector<Key>& locks = out_.addresses.locks();
    object_var_.assign(locks.size(), UINT32_MAX);
    for (uint32_t l = 0; l < locks.size(); ++l) {
      const Key k{locks[l].instance, locks[l].addr & ~fmt::kAtomicLockBit};
      auto it = std::lower_bound(
          sync_objects_.begin(), sync_objects_.end(), k,
          [](const std::pair<Key, uint32_t>& a, const Key& b) { return key_less(a.first, b); });
      if (it != sync_objects_.end() && it->first == k) object_var_[l] = it->second;
    }
    sync_objects_.clear();
    sync_objects_.shrink_to_fit();
  }
  // Races on a benign range are not reported: its accesses leave the trace (whenever the
  // annotation came), its synchronisation stays.
  has_benign_ = out_.addresses.has_benign();
  if (has_benign_) benign_ = out_.addresses.benign_variables();
}

void Assembly::Impl::run() {
  // The first pass builds the address model the names come from.
  AddressModel& addresses = out_.addresses;
  RecordMerger merger(recording_, cut_);
  fmt::RawRecord r;
  uint32_t tid = 0;
  while (merger.next(r, tid)) {
    const uint8_t raw = static_cast<uint8_t>(r.op_pc >> 56);
    const uint8_t op = raw & fmt::kRawOpMask;
    const uint8_t code = raw >> fmt::kRawSizeShift;
    const uint64_t pc = r.op_pc & 0x00ffffffffffffffULL;
    // The size record that the runtime writes as the thread's next record, or UINT64_MAX.
    auto take_size = [&]() -> uint64_t {
      const fmt::RawRecord* size = merger.following();
      if (!size || static_cast<uint8_t>(size->op_pc >> 56) != fmt::kRawSize) return UINT64_MAX;
      const uint64_t n = size->addr;
      merger.take_following();
      return n;
    };
    // A write of [addr, addr + n) by the thread at pc (free, init/destroy), before the event
    // the record stands for; `target`: the variable of its start, or UINT32_MAX.
    auto range_write = [&](Key start, uint64_t n, uint32_t target) {
      const uint32_t thread = thread_of(tid);
      const Event e{Op::Write, thread, target, event_location(tid, pc, 0)};
      if (target != UINT32_MAX) use(target, thread, 0, e.location);
      spill_.put_range(e, start, n);
    };
    if (op == fmt::kRawAlloc) {
      if (const uint64_t n = take_size(); n != UINT64_MAX) addresses.alloc(r.addr, n, pc);
    } else if (op == fmt::kRawBenign) {
      if (const uint64_t n = take_size(); n != UINT64_MAX) addresses.benign(r.addr, n);
    } else if (op == fmt::kRawFree) {
      // A free writes the block (ThreadSanitizer: a use that races with it is a race on the
      // freed memory): the variables the block had, whatever its size.
      uint64_t instance, size;
      bool accessed;
      if (addresses.block_at(r.addr, instance, size, accessed) && accessed && size)
        range_write(Key{instance, 0}, size, UINT32_MAX);
      addresses.free(r.addr);
    } else if (op == fmt::kRawSyncObject) {
      if (const uint64_t n = take_size(); n != UINT64_MAX && n) {
        const uint32_t v = addresses.variable(r.addr);
        sync_objects_.emplace_back(addresses.key(r.addr), v);
        range_write(addresses.key(r.addr), n, v);
      }
    } else if (op == fmt::kRawStack) {
      if (const uint64_t n = take_size(); n != UINT64_MAX) {
        const uint32_t thread = thread_of(tid);
        out_.stacks.push_back({r.addr, r.addr + n, thread});
      }
    } else if (op == fmt::kRawFuncEntry) {
      PerThread& t = state(tid);
      if (paths_[t.path].depth < (1u << 16))
        t.path = call(t.path, r.addr);
      else
        ++t.deeper;
      t.node = UINT32_MAX;
    } else if (op == fmt::kRawFuncExit) {
      PerThread& t = state(tid);
      if (t.deeper)
        --t.deeper;
      else  // (a longjmp or exception may have skipped exits: the root stays)
        t.path = paths_[t.path].parent;
      t.node = UINT32_MAX;
    } else if (op == fmt::kRawCaller) {
      state(tid).caller = r.addr;
    } else if (op < fmt::kOpCount) {
      Event e;
      e.op = static_cast<Op>(op);
      e.thread = thread_of(tid);
      const uint64_t addr = r.addr;
      Key range_start{};
      uint64_t range_length = 0;
      uint8_t access_bytes = 0;  // 0: a range
      if (op == fmt::kFork || op == fmt::kJoin) {
        e.target = thread_of(static_cast<uint32_t>(addr));
      } else if (op == fmt::kRead || op == fmt::kWrite) {
        e.target = addresses.variable(addr);
        if (code == fmt::kSizeRange) {
          range_length = take_size();
          if (range_length == UINT64_MAX) continue;  // cut off with its length
          range_start = addresses.key(addr);
        } else {
          access_bytes = static_cast<uint8_t>(fmt::size_bytes(code));
        }
      } else {
        e.target = addresses.lock(addr);
      }
      PerThread& t = threads_[tid];
      e.location = event_location(tid, pc, t.caller);
      threads_[tid].caller = 0;
      if (code == fmt::kSizeRange && e.is_access())
        spill_.put_range(e, range_start, range_length);
      else
        spill_.put(e, code);
      if (e.is_access()) use(e.target, e.thread, access_bytes, e.location);
    }
    // else: a stray size record
  }
  out_.cut_events = merger.cut_events();
  peak_raw_bytes_ = std::max(peak_raw_bytes_, merger.peak_raw_bytes());
}

Assembly::Assembly(const RawRecording& recording, uint64_t cut, size_t spill_chunk)
    : impl_(std::make_unique<Impl>(recording, cut, spill_chunk)) {}
Assembly::~Assembly() = default;
void Assembly::scan() {
  impl_->scan();
}
Assembled& Assembly::scanned() {
  return impl_->scanned();
}
void Assembly::emit(EventBatchSink& sink) {
  impl_->emit(sink);
}
uint64_t Assembly::peak_raw_bytes() const {
  return impl_->peak_raw_bytes();
}
uint64_t Assembly::spill_bytes() const {
  return impl_->spill_bytes();
}

Assembled assemble(const RawRecording& recording, uint64_t cut) {
  struct Keep : EventBatchSink {
    std::vector<Event> events;
    void on_events(std::span<const Event> batch) override {
      events.insert(events.end(), batch.begin(), batch.end());
    }
  } keep;
  Assembly assembly(recording, cut);
  assembly.scan();
  assembly.emit(keep);
  Assembled out = std::move(assembly.scanned());
  out.events = std::move(keep.events);
  return out;
}

}  // namespace racepred::recording
