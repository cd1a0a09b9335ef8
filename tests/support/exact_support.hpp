// Test helpers for the exact analyses: loading the papers' examples and an independent check of
// Def. 3.4 (correctly reordered prefix) for witnesses.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "racepred/io/reader.hpp"
#include "racepred/report/race.hpp"
#include "racepred/trace/trace.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred::testing {

inline Trace load_example(const std::string& name) {
  return load_trace(std::string(RACEPRED_EXAMPLES_DIR) + "/exact/" + name);
}

// Checks that `order` (event indices) is a correctly reordered prefix of `t` (Def. 3.4) with
// the semantics documented in docs/GROUND_TRUTH.md: program order kept as a prefix per thread,
// a thread's events after its fork, joins after every event of the joined thread, no lock held
// by two threads, releases by the holder, every read sees its last write of the trace (or no
// write when it has none). Returns "" or the first problem.
inline std::string check_reordering(const TraceIndex& t, const std::vector<uint32_t>& order) {
  std::vector<uint32_t> position(t.thread_count(), 0);
  std::map<uint32_t, uint32_t> holder;             // lock -> thread (write mode)
  std::map<uint32_t, std::set<uint32_t>> readers;  // lock -> threads (read mode)
  std::map<uint32_t, uint32_t> last_write;         // variable -> event index
  std::set<uint32_t> done;
  for (size_t k = 0; k < order.size(); ++k) {
    const uint32_t i = order[k];
    const Event& e = t.event(i);
    const std::string at =
        "step " + std::to_string(k + 1) + " (e" + std::to_string(t.id(i)) + "): ";
    if (done.count(i)) return at + "event repeated";
    const auto& events = t.thread_events(e.thread);
    if (position[e.thread] >= events.size() || events[position[e.thread]] != i)
      return at + "program order broken";
    const uint32_t fork = t.fork_of(e.thread);
    if (fork != kNoIndex && !done.count(fork)) return at + "runs before its fork";
    switch (e.op) {
      case Op::Acquire:
        if (holder.count(e.target)) return at + "lock held by another thread";
        if (!readers[e.target].empty()) return at + "lock held in read mode";
        holder[e.target] = e.thread;
        break;
      case Op::ReadAcquire:
        if (holder.count(e.target)) return at + "lock held by another thread";
        readers[e.target].insert(e.thread);
        break;
      case Op::ReadRelease:
        if (!readers[e.target].erase(e.thread)) return at + "read release of a lock not held";
        break;
      case Op::Release:
        if (!holder.count(e.target) || holder[e.target] != e.thread)
          return at + "release of a lock not held";
        holder.erase(e.target);
        break;
      case Op::Join:
        if (position[e.target] != t.thread_events(e.target).size())
          return at + "join before the joined thread finished";
        break;
      case Op::Read: {
        const uint32_t expected = t.last_write(i);
        const auto it = last_write.find(e.target);
        const uint32_t seen = it == last_write.end() ? kNoIndex : it->second;
        if (seen != expected) return at + "read sees another write than in the trace";
        break;
      }
      case Op::Write:
        last_write[e.target] = i;
        break;
      case Op::Recv:  // after every send on its object earlier in the trace
        for (uint32_t j = 0; j < i; ++j)
          if (t.event(j).op == Op::Send && t.event(j).target == e.target && !done.count(j))
            return at + "recv before an earlier send on its object";
        break;
      case Op::Send:
      case Op::Fork:
      case Op::Request:
      case Op::ReadRequest:
        break;
    }
    done.insert(i);
    ++position[e.thread];
  }
  return {};
}

// Event index of the event with id `id` (examples have no gaps: id - 1).
inline uint32_t ix(EventId id) {
  return static_cast<uint32_t>(id - 1);
}

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

// Index pairs from 1-based event ids.
inline Pairs pairs_of(std::initializer_list<std::pair<EventId, EventId>> ids) {
  Pairs p;
  for (auto [a, b] : ids) p.emplace_back(ix(a), ix(b));
  return p;
}

inline std::string to_string(const Pairs& pairs) {
  std::string s;
  for (auto [a, b] : pairs) s += "(e" + std::to_string(a + 1) + ",e" + std::to_string(b + 1) + ") ";
  return s.empty() ? "none" : s;
}

// "(e1,e2)" by event ids (appends: GCC 12's -Wrestrict misfires on chains of operator+).
inline std::string pair_text(const TraceIndex& t, uint32_t a, uint32_t b) {
  std::string s("(");
  s.append(std::to_string(t.id(a))).append(",").append(std::to_string(t.id(b))).append(")");
  return s;
}

inline std::string show(const TraceIndex& t, const Pairs& pairs) {
  std::string s;
  for (auto [a, b] : pairs) s.append(pair_text(t, a, b)).append(" ");
  return s.empty() ? "none" : s;
}

// The index pairs of an engine's races, sorted.
inline Pairs engine_pairs(const TraceIndex& t, const RaceSink& sink) {
  std::map<EventId, uint32_t> position;
  for (uint32_t i = 0; i < t.size(); ++i) position[t.id(i)] = i;
  Pairs out;
  for (const Race& race : sink.races())
    out.emplace_back(position.at(race.first.event), position.at(race.second.event));
  std::sort(out.begin(), out.end());
  return out;
}

// The racy events (second accesses) of pairs.
inline std::set<uint32_t> racy(const Pairs& pairs) {
  std::set<uint32_t> out;
  for (auto [a, b] : pairs) out.insert(b);
  return out;
}

}  // namespace racepred::testing
