#include "racepred/recording/assemble.hpp"

#include <map>
#include <string>
#include <unordered_map>

#include "racepred/format/trace_format.hpp"
#include "racepred/recording/merge.hpp"

namespace racepred::recording {

namespace fmt = racepred::format;

Assembled assemble(const RawRecording& recording, uint64_t cut) {
  Assembled out;
  out.events.reserve(recording.records);  // an upper bound: no regrowth of the largest array
  AddressModel& addresses = out.addresses;
  std::vector<uint64_t>& pcs = out.pcs;

  // Per runtime thread id: the trace's thread id (UINT32_MAX until named) and the caller of
  // its next event (a kRawCaller record), or 0.
  struct PerThread {
    uint32_t id = UINT32_MAX;
    uint64_t caller = 0;
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

  RecordMerger merger(recording, cut);
  fmt::RawRecord r;
  uint32_t tid = 0;
  while (merger.next(r, tid)) {
    const uint8_t op = static_cast<uint8_t>(r.op_pc >> 56);
    const uint64_t pc = r.op_pc & 0x00ffffffffffffffULL;
    if (op == fmt::kRawAlloc) {
      // The runtime writes the block's size as the thread's next record.
      const fmt::RawRecord* size = merger.following();
      if (size && static_cast<uint8_t>(size->op_pc >> 56) == fmt::kRawSize) {
        addresses.alloc(r.addr, size->addr, pc);
        merger.take_following();
      }
    } else if (op == fmt::kRawBenign) {
      const fmt::RawRecord* size = merger.following();
      if (size && static_cast<uint8_t>(size->op_pc >> 56) == fmt::kRawSize) {
        addresses.benign(r.addr, size->addr);
        merger.take_following();
      }
    } else if (op == fmt::kRawFree) {
      addresses.free(r.addr);
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
      } else {
        e.target = addresses.lock(addr);
      }
      uint64_t& caller = threads[tid].caller;
      e.location = caller ? caller_location_id(pc, caller)
                          : loc_cache.get(pc, [&] { return location_id(pc); });
      caller = 0;
      out.events.push_back(e);
    }
    // else: a stray size record
  }
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
