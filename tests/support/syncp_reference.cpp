#include "support/syncp_reference.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace racepred::testing {

std::vector<bool> syncp_ideal_set(const TraceIndex& t, uint32_t e1, uint32_t e2) {
  const uint32_t n = static_cast<uint32_t>(t.size());
  std::vector<bool> in(n, false);
  bool changed = false;
  const auto add = [&](uint32_t e) {
    if (e != kNoIndex && !in[e]) {
      in[e] = true;
      changed = true;
    }
  };
  for (const uint32_t e : {e1, e2}) {
    const ThreadId u = t.event(e).thread;
    const auto& events = t.thread_events(u);
    for (uint32_t k = 0; k < t.index_in_thread(e); ++k) add(events[k]);
    add(t.fork_of(u));
  }
  do {
    changed = false;
    for (uint32_t e = 0; e < n; ++e) {
      if (!in[e]) continue;
      const Event& ev = t.event(e);
      const uint32_t pos = t.index_in_thread(e);
      if (pos > 0)
        add(t.thread_events(ev.thread)[pos - 1]);
      else
        add(t.fork_of(ev.thread));
      if (ev.op == Op::Read) add(t.last_write(e));
      if (ev.op == Op::Join && !t.thread_events(ev.target).empty())
        add(t.thread_events(ev.target).back());
      if (ev.op == Op::Recv)  // after every earlier send on its object (a hard order)
        for (uint32_t s = 0; s < e; ++s)
          if (t.event(s).op == Op::Send && t.event(s).target == ev.target) add(s);
    }
    for (uint32_t a = 0; a < n; ++a) {
      if (!in[a] || !is_acquire_op(t.event(a).op)) continue;
      for (uint32_t b = a + 1; b < n; ++b) {
        if (!in[b] || !is_acquire_op(t.event(b).op) || t.event(b).target != t.event(a).target)
          continue;
        if (t.event(a).op != Op::Acquire && t.event(b).op != Op::Acquire) continue;
        const uint32_t release = t.matching(a);
        if (release != kNoIndex) {
          add(release);
        } else {  // never released: nothing after a in its thread can be in a reordering
          add(t.thread_events(t.event(a).thread).back());
        }
        break;
      }
    }
  } while (changed);
  return in;
}

std::vector<uint32_t> syncp_ideal_prefixes(const TraceIndex& t, const std::vector<bool>& set) {
  std::vector<uint32_t> prefix(t.thread_count(), 0);
  for (ThreadId u = 0; u < t.thread_count(); ++u) {
    const auto& events = t.thread_events(u);
    uint32_t k = 0;
    while (k < events.size() && set[events[k]]) ++k;
    for (uint32_t j = k; j < events.size(); ++j)
      if (set[events[j]]) return {};
    prefix[u] = k;
  }
  return prefix;
}

std::vector<std::pair<uint32_t, uint32_t>> syncp_all_races(const TraceIndex& t) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [e1, e2] : t.conflicting_pairs()) {
    const std::vector<bool> in = syncp_ideal_set(t, e1, e2);
    if (!in[e1] && !in[e2]) out.emplace_back(e1, e2);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> syncp_earliest_partners(
    const TraceIndex& t, const std::vector<std::pair<uint32_t, uint32_t>>& all) {
  std::map<std::tuple<uint32_t, ThreadId, Op>, uint32_t> earliest;
  for (const auto& [e1, e2] : all) {
    const auto key = std::make_tuple(e2, t.event(e1).thread, t.event(e1).op);
    const auto it = earliest.find(key);
    if (it == earliest.end() || e1 < it->second) earliest[key] = e1;
  }
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [key, e1] : earliest) out.emplace_back(e1, std::get<0>(key));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace racepred::testing
