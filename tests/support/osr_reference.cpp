#include "support/osr_reference.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace racepred::testing {
namespace {

// Closes `in` under thread order, fork/join, reads-from and sync orders.
void close_trf(const TraceIndex& t, std::vector<bool>& in) {
  for (bool changed = true; changed;) {
    changed = false;
    const auto add = [&](uint32_t e) {
      if (e != kNoIndex && !in[e]) {
        in[e] = true;
        changed = true;
      }
    };
    for (uint32_t e = 0; e < t.size(); ++e) {
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
      if (ev.op == Op::Recv)
        for (const uint32_t s : t.sends_before(e)) add(s);
    }
  }
}

}  // namespace

std::vector<bool> osr_closure_set(const TraceIndex& t, uint32_t e1, uint32_t e2) {
  const uint32_t n = static_cast<uint32_t>(t.size());
  std::vector<bool> in(n, false);
  for (const uint32_t e : {e1, e2}) {
    const ThreadId u = t.event(e).thread;
    const auto& events = t.thread_events(u);
    for (uint32_t k = 0; k < t.index_in_thread(e); ++k) in[events[k]] = true;
    if (t.fork_of(u) != kNoIndex) in[t.fork_of(u)] = true;
  }
  close_trf(t, in);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t a = 0; a < n; ++a) {
      if (!in[a] || !is_acquire_op(t.event(a).op)) continue;
      const uint32_t r = t.matching(a);
      if (r == kNoIndex || in[r]) continue;
      std::vector<bool> before(n, false);
      before[r] = true;
      close_trf(t, before);
      if (before[e1] || before[e2]) continue;  // the section stays open
      for (uint32_t e = 0; e < n; ++e)
        if (before[e]) in[e] = true;
      changed = true;
    }
  }
  return in;
}

bool osr_race(const TraceIndex& t, uint32_t e1, uint32_t e2, std::vector<uint32_t>* order) {
  const std::vector<bool> in = osr_closure_set(t, e1, e2);
  if (in[e1] || in[e2]) return false;
  const uint32_t threads = t.thread_count();
  std::vector<uint32_t> target(threads, 0);
  for (ThreadId u = 0; u < threads; ++u)
    for (const uint32_t e : t.thread_events(u)) target[u] += in[e] ? 1 : 0;
  const auto sections = t.critical_sections();
  std::vector<uint32_t> k(threads, 0);
  const auto ran = [&](uint32_t e) { return t.index_in_thread(e) < k[t.event(e).thread]; };
  const auto closed = [&](const CriticalSection& c) {
    return c.release != kNoIndex && in[c.release];
  };
  // Whether e, the next event of its thread, may run now.
  const auto may_run = [&](uint32_t e) {
    const Event& ev = t.event(e);
    const uint32_t fork = t.fork_of(ev.thread);
    if (t.index_in_thread(e) == 0 && fork != kNoIndex && !ran(fork)) return false;
    if (ev.op == Op::Join && k[ev.target] != t.thread_events(ev.target).size()) return false;
    if (ev.op == Op::Recv)
      for (const uint32_t s : t.sends_before(e))
        if (!ran(s)) return false;
    if (ev.is_access()) {
      // Conflicting accesses of S keep their trace order (so every read keeps its write).
      for (uint32_t f = 0; f < e; ++f) {
        const Event& fe = t.event(f);
        if (in[f] && fe.is_access() && fe.target == ev.target &&
            (fe.op == Op::Write || ev.op == Op::Write) && !ran(f))
          return false;
      }
    }
    if (is_acquire_op(ev.op)) {
      const bool write = ev.op == Op::Acquire;
      bool mine_closed = false;
      for (const CriticalSection& c : sections)
        if (c.acquire == e) mine_closed = closed(c);
      for (const CriticalSection& c : sections) {
        if (c.lock != ev.target || c.acquire == e || !in[c.acquire] || (!write && c.read)) continue;
        // The lock is free: no other section of it is running.
        if (ran(c.acquire) && (c.release == kNoIndex || !ran(c.release))) return false;
        // The sections closed in S keep their trace order.
        if (mine_closed && closed(c) && c.acquire < e && !ran(c.release)) return false;
      }
    }
    return true;
  };
  std::set<std::vector<uint32_t>> seen;
  std::vector<uint32_t> path;
  const std::function<bool()> search = [&]() -> bool {
    if (k == target) return true;
    if (!seen.insert(k).second) return false;
    for (ThreadId u = 0; u < threads; ++u) {
      if (k[u] == target[u]) continue;
      const uint32_t e = t.thread_events(u)[k[u]];
      if (!may_run(e)) continue;
      ++k[u];
      path.push_back(e);
      if (search()) return true;
      path.pop_back();
      --k[u];
    }
    return false;
  };
  if (!search()) return false;
  if (order != nullptr) *order = path;
  return true;
}

std::vector<std::pair<uint32_t, uint32_t>> osr_all_races(const TraceIndex& t) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& [e1, e2] : t.conflicting_pairs())
    if (osr_race(t, e1, e2)) out.emplace_back(e1, e2);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace racepred::testing
