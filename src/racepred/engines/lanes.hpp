// Lanes for the offline predictors whose clocks have one word per thread (osr, m2): a thread
// forked by one that has joined an earlier thread runs in that thread's lane, after its events,
// when the earlier one ended holding no lock (and, where the engine asks, not in a pending
// request). Every event of the earlier thread is then ordered before the later one's first event
// (its last event -> join -> the joiner's later events -> fork -> first event), so a lane's
// events in order are one chain of thread order: the clocks need one word per lane (threads alive
// at once), not per thread, and 100,000 short-lived threads fit in a few dozen lanes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred {

struct Lanes {
  uint32_t count = 0;
  std::vector<uint32_t> of;      // per thread: its lane (kNoIndex: no events)
  std::vector<uint32_t> offset;  // per thread: the position of its first event in its lane
  std::vector<const std::vector<uint32_t>*> events;  // per lane: its events in order
  std::vector<std::vector<uint32_t>> shared;         // the event lists of lanes of several threads
};

struct LaneOptions {
  bool share = true;                      // false: every thread its own lane (tests compare both)
  bool request_ends_unshareable = false;  // a thread that ends in a pending request keeps its lane
  const char* engine = "";                // for the message when the lanes are too many
  uint32_t limit = UINT32_MAX;            // at most this many lanes, or a BudgetError
};

inline Lanes make_lanes(const TraceIndex& index, const LaneOptions& o) {
  const uint32_t threads = index.thread_count();
  Lanes lanes;
  lanes.of.assign(threads, kNoIndex);
  lanes.offset.assign(threads, 0);
  std::vector<uint8_t> unshareable(threads, 0);
  for (uint32_t i = 0; i < index.size(); ++i) {
    const Event& e = index.event(i);
    if (is_acquire_op(e.op) && index.matching(i) == kNoIndex) unshareable[e.thread] = 1;
    if (o.request_ends_unshareable && is_request_op(e.op) && index.last_of(e.thread) == i)
      unshareable[e.thread] = 1;
  }
  std::vector<uint32_t> length;                        // per lane: its events so far
  std::vector<ThreadId> latest;                        // per lane: its latest thread
  std::vector<std::vector<ThreadId>> members;          // per lane: its threads in order
  std::vector<std::vector<ThreadId>> joined(threads);  // per thread: the threads it joined
  const auto place = [&](ThreadId x, uint32_t l) {
    if (l == length.size()) {
      length.push_back(0);
      latest.push_back(x);
      members.emplace_back();
    }
    lanes.of[x] = l;
    lanes.offset[x] = length[l];
    length[l] += static_cast<uint32_t>(index.thread_events(x).size());
    latest[l] = x;
    members[l].push_back(x);
  };
  for (uint32_t i = 0; i < index.size(); ++i) {
    const Event& e = index.event(i);
    if (lanes.of[e.thread] == kNoIndex) place(e.thread, static_cast<uint32_t>(length.size()));
    const ThreadId x = e.target;
    if (e.op == Op::Fork && x != e.thread && x < threads && lanes.of[x] == kNoIndex &&
        !index.thread_events(x).empty()) {
      uint32_t l = static_cast<uint32_t>(length.size());
      std::vector<ThreadId>& free = joined[e.thread];
      while (o.share && !free.empty()) {
        const ThreadId y = free.back();
        free.pop_back();
        if (latest[lanes.of[y]] == y) {  // y's lane has taken no thread since
          l = lanes.of[y];
          break;
        }
      }
      place(x, l);
    } else if (e.op == Op::Join && x != e.thread && x < threads && lanes.of[x] != kNoIndex &&
               !unshareable[x] && latest[lanes.of[x]] == x && index.last_of(x) < i) {
      joined[e.thread].push_back(x);
    }
  }
  lanes.count = static_cast<uint32_t>(length.size());
  if (lanes.count > o.limit)
    throw BudgetError(std::string(o.engine) +
                      " keeps a clock of one entry per thread alive at once; " +
                      std::to_string(lanes.count) +
                      " threads alive at once (threads that were joined and whose joiner forks "
                      "again share one) are more than its " +
                      std::to_string(o.limit));
  lanes.events.resize(lanes.count);
  for (uint32_t l = 0; l < lanes.count; ++l) {
    if (members[l].size() == 1) {
      lanes.events[l] = &index.thread_events(members[l][0]);
      continue;
    }
    std::vector<uint32_t>& ev = lanes.shared.emplace_back();
    ev.reserve(length[l]);
    for (const ThreadId x : members[l])
      ev.insert(ev.end(), index.thread_events(x).begin(), index.thread_events(x).end());
  }
  // The shared lists are in place now (no more growth): point at them.
  size_t k = 0;
  for (uint32_t l = 0; l < lanes.count; ++l)
    if (members[l].size() > 1) lanes.events[l] = &lanes.shared[k++];
  return lanes;
}

}  // namespace racepred
