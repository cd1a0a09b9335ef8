#include "racepred/recording/assemble.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/merge.hpp"

namespace racepred::recording {

namespace fmt = racepred::format;

namespace {

// A range access (its event's op has size code kSizeRange): the bytes [start, start + length).
struct RangeAccess {
  size_t event;
  Key start;
  uint64_t length;
};

// What the accesses of one variable (a start address) were: its largest fixed size, and the one
// thread that accessed it (kShared: several).
struct VarUse {
  static constexpr uint32_t kNone = UINT32_MAX, kShared = UINT32_MAX - 1;
  uint32_t owner = kNone;
  uint8_t largest = 0;
};

bool key_less(const Key& a, const Key& b) {
  return a.instance != b.instance ? a.instance < b.instance : a.addr < b.addr;
}

// Turns the sized accesses of `events` into events of variables: an access of [s, s + n) by
// thread t is an access of its own start and of every variable that starts inside it and that
// a thread other than t accessed. Two accesses of different threads then share a variable
// exactly when their bytes overlap: both contain the larger of their two starts, which is one
// of them's own start, accessed by its thread. An access that no other access starts inside
// stays one event, and a range (a free of a block that only one thread used) costs nothing for
// the variables only its own thread touches. Every lock or sync event of an initialised or
// destroyed sync object is preceded by a read of the object's variable.
void expand_accesses(std::vector<Event>& events, const AddressModel& addresses,
                     const std::vector<VarUse>& uses, const std::vector<RangeAccess>& ranges,
                     std::vector<std::pair<Key, uint32_t>>& sync_objects) {
  auto plain = [](Op op) { return static_cast<Op>(static_cast<uint8_t>(op) & 15); };
  auto code_of = [](Op op) { return static_cast<uint8_t>(static_cast<uint8_t>(op) >> 4); };
  const std::vector<Key>& keys = addresses.variables();
  // The variables in address order, and per variable the distance to the next one's start in
  // the same memory (capped at 255): a fixed-size access splits only when it is larger.
  struct Start {
    Key key;
    uint32_t id;
  };
  std::vector<Start> starts(keys.size());
  for (uint32_t v = 0; v < keys.size(); ++v) starts[v] = Start{keys[v], v};
  bool split = false;
  std::vector<uint8_t> gap;
  if (!uses.empty() || !ranges.empty()) {
    std::sort(starts.begin(), starts.end(),
              [](const Start& a, const Start& b) { return key_less(a.key, b.key); });
    gap.assign(keys.size(), 255);
    for (size_t i = 0; i + 1 < starts.size(); ++i) {
      const Key &a = starts[i].key, &b = starts[i + 1].key;
      if (a.instance == b.instance && b.addr - a.addr < 255) {
        gap[starts[i].id] = static_cast<uint8_t>(b.addr - a.addr);
        if (starts[i].id < uses.size() && uses[starts[i].id].largest > gap[starts[i].id])
          split = true;
      }
    }
  }
  // Per lock id: the variable of its sync object, or UINT32_MAX.
  std::vector<uint32_t> object_var;
  if (!sync_objects.empty()) {
    std::sort(sync_objects.begin(), sync_objects.end(),
              [](const auto& a, const auto& b) { return key_less(a.first, b.first); });
    const std::vector<Key>& locks = addresses.locks();
    object_var.assign(locks.size(), UINT32_MAX);
    for (uint32_t l = 0; l < locks.size(); ++l) {
      const Key k{locks[l].instance, locks[l].addr & ~fmt::kAtomicLockBit};
      auto it = std::lower_bound(
          sync_objects.begin(), sync_objects.end(), k,
          [](const std::pair<Key, uint32_t>& a, const Key& b) { return key_less(a.first, b); });
      if (it != sync_objects.end() && it->first == k) object_var[l] = it->second;
    }
  }
  if (!split && ranges.empty() && object_var.empty()) {
    for (Event& e : events) e.op = plain(e.op);
    return;
  }
  std::vector<Event> out;
  out.reserve(events.size() + events.size() / 8);
  // The events of an access of [start, start + length) whose own start is e.target
  // (UINT32_MAX: none, a free).
  auto expand = [&](Event e, const Key& start, uint64_t length) {
    const uint32_t own = e.target;
    auto it = std::lower_bound(starts.begin(), starts.end(), start,
                               [](const Start& a, const Key& b) { return key_less(a.key, b); });
    for (; it != starts.end() && it->key.instance == start.instance &&
           it->key.addr - start.addr < length;
         ++it) {
      if (it->id != own && (it->id >= uses.size() || uses[it->id].owner == e.thread)) continue;
      e.target = it->id;
      out.push_back(e);
    }
  };
  size_t next_range = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    Event e = events[i];
    const uint8_t code = code_of(e.op);
    e.op = plain(e.op);
    // (Not for a request: the acquire that grants it reads the object, and nothing but that
    // acquire may follow a req in its thread.)
    if (targets_lock(e.op) && e.op != Op::Request && e.target < object_var.size() &&
        object_var[e.target] != UINT32_MAX)
      out.push_back(Event{Op::Read, e.thread, object_var[e.target], e.location});
    if (!e.is_access()) {
      out.push_back(e);
    } else if (code == fmt::kSizeRange) {
      const RangeAccess& r = ranges[next_range++];
      expand(e, r.start, r.length);
    } else if (!gap.empty() && fmt::size_bytes(code) > gap[e.target]) {
      expand(e, keys[e.target], fmt::size_bytes(code));
    } else {
      out.push_back(e);
    }
  }
  events.swap(out);
}

}  // namespace

Assembled assemble(const RawRecording& recording, uint64_t cut) {
  Assembled out;
  out.events.reserve(recording.records);  // an upper bound: no regrowth of the largest array
  AddressModel& addresses = out.addresses;
  std::vector<uint64_t>& pcs = out.pcs;

  // Per runtime thread id: the trace's thread id (UINT32_MAX until named) and the caller of
  // its next event (a kRawCaller record), or 0.
  // With stacks: the return addresses of its open calls (outermost first), and the node of its
  // innermost depth - 1 of them (UINT32_MAX: to be computed at its next event).
  struct PerThread {
    uint32_t id = UINT32_MAX;
    uint64_t caller = 0;
    std::vector<uint64_t> calls;
    uint32_t node = UINT32_MAX;
    uint32_t deeper = 0;  // calls past the bound of `calls` (a runaway recursion)
    // Its last event's (pc, caller, node) and location index: loops repeat them.
    uint64_t last_pc = 0, last_caller = 0;
    uint32_t last_node = UINT32_MAX, last_index = 0;
  };
  std::vector<PerThread> threads;
  auto state = [&](uint32_t tid) -> PerThread& {
    if (tid >= threads.size()) threads.resize(size_t{tid} + 1);
    return threads[tid];
  };
  auto thread_of = [&](uint32_t tid) {
    PerThread& t = state(tid);
    if (t.id == UINT32_MAX) {
      std::string name = "T";  // (not "T" + to_string: gcc 12 warns falsely, -Wrestrict)
      name += std::to_string(tid);
      t.id = out.threads.intern(name);
    }
    return t.id;
  };
  std::unordered_map<uint64_t, uint32_t> loc_ids;
  auto location_id = [&](uint64_t pc) {
    auto [it, fresh] = loc_ids.emplace(pc, static_cast<uint32_t>(pcs.size()));
    if (fresh) pcs.push_back(pc);
    return it->second;
  };
  // (pc, caller) -> location index: an event with a caller record has a location of its own.
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> caller_locs;
  auto caller_location_id = [&](uint64_t pc, uint64_t caller) {
    auto [it, fresh] =
        caller_locs.emplace(std::pair{pc, caller}, static_cast<uint32_t>(pcs.size()));
    if (fresh) {
      pcs.push_back(pc);
      out.callers.push_back({it->second, caller});
    }
    return it->second;
  };
  AddressCache loc_cache;
  // Stacks: a node per distinct list of callers; an event's location index is per (pc, caller,
  // node).
  const uint32_t depth = recording.stack_depth;
  std::map<std::vector<uint64_t>, uint32_t> node_ids;
  std::map<std::tuple<uint64_t, uint64_t, uint32_t>, uint32_t> stack_locs;
  if (depth) out.caller_nodes.emplace_back();  // node 0: no stack
  auto node_of = [&](PerThread& t) {
    if (t.node != UINT32_MAX) return t.node;
    // calls[0] is the return address into whatever started the thread's outermost instrumented
    // function (libc's start of main, the runtime's thread trampoline): not a frame of the
    // program, and ThreadSanitizer's stacks end at that function too.
    const size_t n = std::min<size_t>(t.calls.empty() ? 0 : t.calls.size() - 1, depth - 1);
    std::vector<uint64_t> key(t.calls.rbegin(), t.calls.rbegin() + static_cast<ptrdiff_t>(n));
    auto [it, fresh] = node_ids.emplace(key, static_cast<uint32_t>(out.caller_nodes.size()));
    if (fresh) {
      std::vector<uint32_t> frames;
      for (const uint64_t pc : key) frames.push_back(location_id(pc));
      out.caller_nodes.push_back(std::move(frames));
    }
    return t.node = it->second;
  };
  // The location index of an event of thread `tid` at `pc` (with its caller record, or 0).
  auto event_location = [&](uint32_t tid, uint64_t pc, uint64_t caller) {
    if (!depth)
      return caller ? caller_location_id(pc, caller)
                    : loc_cache.get(pc, [&] { return location_id(pc); });
    PerThread& t = state(tid);
    const uint32_t node = node_of(t);
    if (node == t.last_node && pc == t.last_pc && caller == t.last_caller) return t.last_index;
    auto [it, fresh] =
        stack_locs.emplace(std::tuple{pc, caller, node}, static_cast<uint32_t>(pcs.size()));
    if (fresh) {
      pcs.push_back(pc);
      if (caller) out.callers.push_back({it->second, caller});
      out.location_nodes.resize(pcs.size(), 0);
      out.location_nodes[it->second] = node;
    }
    t.last_pc = pc;
    t.last_caller = caller;
    t.last_node = node;
    return t.last_index = it->second;
  };

  // Access sizes (docs/RECORDER.md, "Access sizes"): an access of bytes [s, s + n) is the set
  // of variables (start addresses of accesses) inside it. Until that set is known, an access
  // event carries its size code in bits 4..7 of its op; the variable's largest fixed size, the
  // range accesses (mem*, libc, free, init/destroy of sync objects) and the sync objects are
  // kept aside; expand_accesses() then makes the events.
  std::vector<VarUse> uses;  // per variable id
  std::vector<RangeAccess> ranges;
  std::vector<std::pair<Key, uint32_t>> sync_objects;  // key, variable id
  auto sized = [](uint8_t op, uint8_t code) { return static_cast<Op>(op | code << 4); };
  auto use = [&](uint32_t v, uint32_t thread, uint8_t bytes) {
    if (v >= uses.size()) uses.resize(size_t{v} + 1);
    VarUse& u = uses[v];
    if (u.owner != thread) u.owner = u.owner == VarUse::kNone ? thread : VarUse::kShared;
    if (bytes > u.largest) u.largest = bytes;
  };

  RecordMerger merger(recording, cut);
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
      ranges.push_back({out.events.size(), start, n});
      if (target != UINT32_MAX) use(target, thread_of(tid), 0);
      out.events.push_back(Event{sized(fmt::kWrite, fmt::kSizeRange), thread_of(tid), target,
                                 event_location(tid, pc, 0)});
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
        sync_objects.emplace_back(addresses.key(r.addr), v);
        range_write(addresses.key(r.addr), n, v);
      }
    } else if (op == fmt::kRawStack) {
      if (const uint64_t n = take_size(); n != UINT64_MAX)
        out.stacks.push_back({r.addr, r.addr + n, thread_of(tid)});
    } else if (op == fmt::kRawFuncEntry) {
      PerThread& t = state(tid);
      if (t.calls.size() < (1u << 16))
        t.calls.push_back(r.addr);
      else
        ++t.deeper;
      t.node = UINT32_MAX;
    } else if (op == fmt::kRawFuncExit) {
      PerThread& t = state(tid);
      if (t.deeper)
        --t.deeper;
      else if (!t.calls.empty())  // (a longjmp or exception may have skipped exits)
        t.calls.pop_back();
      t.node = UINT32_MAX;
    } else if (op == fmt::kRawCaller) {
      state(tid).caller = r.addr;
    } else if (op < fmt::kOpCount) {
      Event e;
      e.op = static_cast<Op>(op);
      e.thread = thread_of(tid);
      const uint64_t addr = r.addr;
      if (op == fmt::kFork || op == fmt::kJoin) {
        e.target = thread_of(static_cast<uint32_t>(addr));
      } else if (op == fmt::kRead || op == fmt::kWrite) {
        e.target = addresses.variable(addr);
        e.op = sized(op, code);
        if (code == fmt::kSizeRange) {
          const uint64_t n = take_size();
          if (n == UINT64_MAX) continue;  // cut off with its length
          ranges.push_back({out.events.size(), addresses.key(addr), n});
          use(e.target, e.thread, 0);
        } else {
          use(e.target, e.thread, static_cast<uint8_t>(fmt::size_bytes(code)));
        }
      } else {
        e.target = addresses.lock(addr);
      }
      e.location = event_location(tid, pc, threads[tid].caller);
      threads[tid].caller = 0;
      out.events.push_back(e);
    }
    // else: a stray size record
  }
  expand_accesses(out.events, addresses, uses, ranges, sync_objects);
  if (addresses.has_benign()) {
    // Races on a benign range are not reported: its accesses leave the trace (whenever the
    // annotation came), its synchronisation stays.
    const std::vector<bool> benign = addresses.benign_variables();
    std::erase_if(out.events, [&](const Event& e) { return e.is_access() && benign[e.target]; });
  }
  out.cut_events = merger.cut_events();
  return out;
}

}  // namespace racepred::recording
