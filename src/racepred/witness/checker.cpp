#include "racepred/witness/checker.hpp"

#include <algorithm>

namespace racepred::witness {

std::string_view rule_name(Rule rule) {
  switch (rule) {
    case Rule::None:
      return "none";
    case Rule::Unknown:
      return "unknown event";
    case Rule::PO:
      return "PO";
    case Rule::Lock1:
      return "Lock-1";
    case Rule::Lock2:
      return "Lock-2";
    case Rule::Fork:
      return "Fork";
    case Rule::Join:
      return "Join";
    case Rule::LW:
      return "LW";
    case Rule::Sync:
      return "Sync";
    case Rule::Conflict:
      return "conflict";
    case Rule::Meet:
      return "meet";
  }
  return "?";
}

Checker::Checker(const Trace& trace) : trace_(trace) {
  const size_t n = trace.size();
  dense_ids_ = n == 0 || (trace.ids.front() == 1 && trace.ids.back() == n);
  const size_t threads = trace.symbols.threads.size();
  rank_.resize(n);
  last_write_.assign(n, kNone);
  thread_events_.assign(threads, 0);
  fork_.assign(threads, kNone);
  std::vector<uint32_t> last(trace.symbols.variables.size(), kNone);
  const bool sync = std::any_of(trace.events.begin(), trace.events.end(),
                                [](const Event& e) { return e.op == Op::Recv; });
  std::vector<std::vector<uint32_t>> sent_on(sync ? trace.symbols.locks.size() : 0);
  if (sync) sends_at_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const Event& e = trace.events[i];
    if (sync) sends_at_[i] = static_cast<uint32_t>(sends_.size());
    if (sync && is_sync_op(e.op)) {
      std::vector<uint32_t>& on = sent_on[e.target];
      if (e.op == Op::Recv) sends_.insert(sends_.end(), on.begin(), on.end());
      if (e.op == Op::Send) {
        const auto same = std::find_if(
            on.begin(), on.end(), [&](uint32_t k) { return trace.events[k].thread == e.thread; });
        if (same != on.end())
          *same = static_cast<uint32_t>(i);
        else
          on.push_back(static_cast<uint32_t>(i));
      }
    }
    rank_[i] = thread_events_[e.thread]++;
    if (e.op == Op::Read) last_write_[i] = last[e.target];
    if (e.op == Op::Write) last[e.target] = static_cast<uint32_t>(i);
    if (e.op == Op::Fork && fork_[e.target] == kNone) fork_[e.target] = static_cast<uint32_t>(i);
  }
  if (sync) sends_at_[n] = static_cast<uint32_t>(sends_.size());
  ran_.assign(threads, 0);
  writer_.assign(trace.symbols.locks.size(), 0);
  readers_.assign(trace.symbols.locks.size(), 0);
  seen_write_.assign(trace.symbols.variables.size(), kNone);
}

size_t Checker::position(EventId id) const {
  if (dense_ids_) return id >= 1 && id <= trace_.size() ? static_cast<size_t>(id - 1) : SIZE_MAX;
  return trace_.index_of(id);
}

std::string Checker::describe(size_t i) const {
  return trace_.to_std(trace_.events[i]) + " (event " + std::to_string(trace_.ids[i]) + ")";
}

Verdict Checker::check_listed(const std::vector<EventId>& prefix, const Witness& w) {
  listed_events_ += prefix.size();
  // The state is reset for the next check from what this one touched.
  std::vector<uint32_t> touched_threads, touched_locks, touched_variables;
  const auto reset = [&] {
    for (uint32_t t : touched_threads) ran_[t] = 0;
    for (uint32_t l : touched_locks) writer_[l] = readers_[l] = 0;
    for (uint32_t x : touched_variables) seen_write_[x] = kNone;
    read_holds_.clear();
  };
  const auto fail = [&](Rule rule, EventId id, std::string message) {
    reset();
    return Verdict{rule, id, std::move(message)};
  };
  const auto started = [&](ThreadId t) {
    const uint32_t f = fork_[t];
    return f == kNone || rank_[f] < ran_[trace_.events[f].thread];
  };

  for (const EventId id : prefix) {
    const size_t i = position(id);
    if (i == SIZE_MAX)
      return fail(Rule::Unknown, id, "event " + std::to_string(id) + " is not in the trace");
    const Event& e = trace_.events[i];
    const ThreadId t = e.thread;
    if (rank_[i] != ran_[t]) {
      return fail(Rule::PO, id,
                  describe(i) + (rank_[i] < ran_[t] ? " runs a second time"
                                                    : " runs before earlier events of " +
                                                          std::string(trace_.thread_name(t))));
    }
    if (!started(t)) {
      return fail(Rule::Fork, id,
                  describe(i) + " runs before its thread is forked by " + describe(fork_[t]));
    }
    if (ran_[t]++ == 0) touched_threads.push_back(t);
    switch (e.op) {
      case Op::Acquire:
      case Op::ReadAcquire: {
        const LockId l = e.target;
        if (writer_[l] != 0)
          return fail(Rule::Lock1, id,
                      describe(i) + " while " + std::string(trace_.thread_name(writer_[l] - 1)) +
                          " holds it");
        if (e.op == Op::Acquire && readers_[l] != 0)
          return fail(Rule::Lock1, id,
                      describe(i) + " while " + std::to_string(readers_[l]) +
                          " thread(s) hold it in read mode");
        touched_locks.push_back(l);
        if (e.op == Op::Acquire) {
          writer_[l] = t + 1;
        } else {
          ++readers_[l];
          read_holds_.emplace_back(l, t);
        }
        break;
      }
      case Op::Release:
        if (writer_[e.target] != t + 1)
          return fail(Rule::Lock2, id, describe(i) + " releases a lock its thread does not hold");
        writer_[e.target] = 0;
        break;
      case Op::ReadRelease: {
        const auto held = std::find(read_holds_.begin(), read_holds_.end(),
                                    std::pair<uint32_t, uint32_t>(e.target, t));
        if (held == read_holds_.end())
          return fail(Rule::Lock2, id,
                      describe(i) + " releases a lock its thread does not hold in read mode");
        read_holds_.erase(held);
        --readers_[e.target];
        break;
      }
      case Op::Fork:
        break;
      case Op::Join:
        if (e.target < ran_.size() && ran_[e.target] != thread_events_[e.target]) {
          return fail(Rule::Join, id,
                      describe(i) + " before " + std::string(trace_.thread_name(e.target)) +
                          " ran all its events (" + std::to_string(ran_[e.target]) + " of " +
                          std::to_string(thread_events_[e.target]) + ")");
        }
        break;
      case Op::Read: {
        const uint32_t seen = seen_write_[e.target], want = last_write_[i];
        if (seen != want) {
          const auto what = [&](uint32_t k) {
            return k == kNone ? std::string("the initial value") : "the write " + describe(k);
          };
          return fail(
              Rule::LW, id,
              describe(i) + " reads " + what(seen) + "; in the trace it reads " + what(want));
        }
        break;
      }
      case Op::Write:
        if (seen_write_[e.target] == kNone) touched_variables.push_back(e.target);
        seen_write_[e.target] = static_cast<uint32_t>(i);
        break;
      case Op::Recv:
        for (uint32_t k = sends_at_[i]; k < sends_at_[i + 1]; ++k) {
          const uint32_t s = sends_[k];
          if (ran_[trace_.events[s].thread] <= rank_[s])
            return fail(Rule::Sync, id, describe(i) + " runs before " + describe(s));
        }
        break;
      case Op::Send:
      case Op::Request:  // a request changes nothing: the acquire that grants it checks the lock
      case Op::ReadRequest:
        break;
    }
  }

  const size_t a = position(w.first), b = position(w.second);
  if (a == SIZE_MAX || b == SIZE_MAX) {
    const EventId missing = a == SIZE_MAX ? w.first : w.second;
    return fail(Rule::Unknown, missing,
                "racing event " + std::to_string(missing) + " is not in the trace");
  }
  if (!conflicting(trace_.events[a], trace_.events[b]))
    return fail(Rule::Conflict, w.second,
                describe(a) + " and " + describe(b) +
                    " do not conflict (one variable, two threads, a write)");
  if (w.notion == Notion::Adjacent) {
    const size_t k = prefix.size();
    if (k < 2 || prefix[k - 2] != w.first || prefix[k - 1] != w.second)
      return fail(Rule::Meet, w.second,
                  "the witness does not end with " + describe(a) + " then " + describe(b));
  } else {
    for (const size_t i : {a, b}) {
      const ThreadId t = trace_.events[i].thread;
      if (rank_[i] != ran_[t])
        return fail(Rule::Meet, trace_.ids[i],
                    describe(i) + " is not the next event of " +
                        std::string(trace_.thread_name(t)) + " after the witness");
      if (!started(t))
        return fail(Rule::Meet, trace_.ids[i],
                    describe(i) + " cannot run: its thread is not forked in the witness");
    }
  }
  reset();
  return {};
}

Verdict Checker::check(const Witness& w) {
  if (w.cut.empty()) return check_listed(w.prefix, w);
  if (!cut_tables_) build_cut_tables();
  Verdict bad;
  for (const EventId id : w.cut) {
    const size_t i = position(id);
    if (i == SIZE_MAX) {
      bad = {Rule::Unknown, id, "cut event " + std::to_string(id) + " is not in the trace"};
      break;
    }
    const ThreadId t = trace_.events[i].thread;
    if (count_[t] != 0) {
      bad = {Rule::PO, id,
             "the cut names two events of " + std::string(trace_.thread_name(t)) + ": " +
                 describe(i) + " and " + describe(positions_[thread_start_[t] + count_[t] - 1])};
      break;
    }
    count_[t] = rank_[i] + 1;
    cut_threads_.push_back(t);
  }
  const bool valid = bad.valid() && w.prefix.empty() && cut_valid(w);
  // Anything else: T' listed, the cut's events in trace order, then the prefix.
  std::vector<EventId> listed;
  if (bad.valid() && !valid) {
    uint32_t end = 0;
    for (const uint32_t t : cut_threads_)
      end = std::max(end, positions_[thread_start_[t] + count_[t] - 1] + 1);
    for (uint32_t i = 0; i < end; ++i)
      if (rank_[i] < count_[trace_.events[i].thread]) listed.push_back(trace_.ids[i]);
    listed.insert(listed.end(), w.prefix.begin(), w.prefix.end());
  }
  for (const uint32_t t : cut_threads_) count_[t] = 0;
  cut_threads_.clear();
  if (!bad.valid() || valid) return bad;
  return check_listed(listed, w);
}

uint64_t Checker::events(const Witness& w) const {
  uint64_t n = w.prefix.size();
  for (const EventId id : w.cut) {
    const size_t i = position(id);
    if (i == SIZE_MAX) return 0;
    n += rank_[i] + 1;
  }
  return n;
}

void Checker::build_cut_tables() {
  cut_tables_ = true;
  const size_t n = trace_.size();
  const size_t threads = thread_events_.size();
  thread_start_.assign(threads + 1, 0);
  for (size_t t = 0; t < threads; ++t) thread_start_[t + 1] = thread_start_[t] + thread_events_[t];
  positions_.resize(n);
  for (size_t i = 0; i < n; ++i)
    positions_[thread_start_[trace_.events[i].thread] + rank_[i]] = static_cast<uint32_t>(i);
  count_.assign(threads, 0);

  // Needs: (t, u, k, r): the event of rank k of t needs the first r events of u in T'.
  struct Need {
    uint32_t t, u, k, r;
  };
  std::vector<Need> needs;
  const auto need = [&](size_t i, uint32_t before) {  // event i needs event `before`
    const uint32_t t = trace_.events[i].thread, u = trace_.events[before].thread;
    if (t != u) needs.push_back({t, u, rank_[i], rank_[before] + 1});
  };
  // Held sections and the sections of each lock.
  struct Section {
    uint32_t lock, thread, rank, position;
    bool write;
  };
  std::vector<Section> sections;
  std::vector<uint32_t> top(threads, kNone);
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> steps(threads);  // (rank, top)
  for (size_t i = 0; i < n; ++i) {
    const Event& e = trace_.events[i];
    const uint32_t t = e.thread;
    if (rank_[i] == 0 && fork_[t] != kNone) need(i, fork_[t]);
    switch (e.op) {
      case Op::Read:
        if (last_write_[i] != kNone) need(i, last_write_[i]);
        break;
      case Op::Join:
        if (e.target < threads && thread_events_[e.target] > 0)
          needs.push_back({t, static_cast<uint32_t>(e.target), rank_[i], thread_events_[e.target]});
        break;
      case Op::Recv:
        for (uint32_t k = sends_at_[i]; k < sends_at_[i + 1]; ++k) need(i, sends_[k]);
        break;
      case Op::Acquire:
      case Op::ReadAcquire:
        held_.push_back({e.target, static_cast<uint32_t>(i), top[t], e.op == Op::ReadAcquire});
        top[t] = static_cast<uint32_t>(held_.size() - 1);
        steps[t].emplace_back(rank_[i], top[t]);
        sections.push_back({e.target, t, rank_[i], static_cast<uint32_t>(i), e.op == Op::Acquire});
        break;
      case Op::Release:
      case Op::ReadRelease: {
        // Off the stack; sections above it (released out of order) are pushed again.
        std::vector<uint32_t> above;
        uint32_t k = top[t];
        while (k != kNone && held_[k].lock != e.target) {
          above.push_back(k);
          k = held_[k].parent;
        }
        if (k == kNone) break;  // a well-formed trace releases only what it holds
        uint32_t parent = held_[k].parent;
        for (size_t a = above.size(); a-- > 0;) {
          Held copy = held_[above[a]];
          copy.parent = parent;
          held_.push_back(copy);
          parent = static_cast<uint32_t>(held_.size() - 1);
        }
        top[t] = parent;
        steps[t].emplace_back(rank_[i], top[t]);
        break;
      }
      default:
        break;
    }
  }

  std::sort(needs.begin(), needs.end(), [](const Need& a, const Need& b) {
    return a.t != b.t ? a.t < b.t : a.u != b.u ? a.u < b.u : a.k < b.k;
  });
  need_at_.assign(threads + 1, 0);
  for (size_t k = 0; k < needs.size();) {
    const uint32_t t = needs[k].t, u = needs[k].u;
    NeedGroup g{u, static_cast<uint32_t>(need_steps_.size()), 0};
    uint32_t most = 0;
    for (; k < needs.size() && needs[k].t == t && needs[k].u == u; ++k)
      if (needs[k].r > most) {
        most = needs[k].r;
        need_steps_.emplace_back(needs[k].k, most);
      }
    g.end = static_cast<uint32_t>(need_steps_.size());
    need_group_.push_back(g);
    ++need_at_[t + 1];
  }
  for (size_t t = 0; t < threads; ++t) need_at_[t + 1] += need_at_[t];

  held_at_.assign(threads + 1, 0);
  for (size_t t = 0; t < threads; ++t) {
    held_steps_.insert(held_steps_.end(), steps[t].begin(), steps[t].end());
    held_at_[t + 1] = static_cast<uint32_t>(held_steps_.size());
  }

  std::stable_sort(sections.begin(), sections.end(), [](const Section& a, const Section& b) {
    return a.lock != b.lock ? a.lock < b.lock : a.thread < b.thread;
  });
  const size_t locks = trace_.symbols.locks.size();
  lock_at_.assign(locks + 1, 0);
  for (size_t k = 0; k < sections.size();) {
    const uint32_t l = sections[k].lock, t = sections[k].thread;
    LockUser user{t, static_cast<uint32_t>(sections_.size()), 0,
                  static_cast<uint32_t>(write_sections_.size()), 0};
    for (; k < sections.size() && sections[k].lock == l && sections[k].thread == t; ++k) {
      sections_.emplace_back(sections[k].rank, sections[k].position);
      if (sections[k].write) write_sections_.emplace_back(sections[k].rank, sections[k].position);
    }
    user.end = static_cast<uint32_t>(sections_.size());
    user.write_end = static_cast<uint32_t>(write_sections_.size());
    lock_users_.push_back(user);
    ++lock_at_[l + 1];
  }
  for (size_t l = 0; l < locks; ++l) lock_at_[l + 1] += lock_at_[l];
}

bool Checker::cut_valid(const Witness& w) const {
  const size_t a = position(w.first), b = position(w.second);
  if (a == SIZE_MAX || b == SIZE_MAX || !conflicting(trace_.events[a], trace_.events[b]))
    return false;
  const auto started = [&](ThreadId t) {
    const uint32_t f = fork_[t];
    return f == kNone || rank_[f] < count_[trace_.events[f].thread];
  };
  // The last step at or before rank k of steps [begin, end) sorted by rank, or nullptr.
  const auto last_step = [](const std::pair<uint32_t, uint32_t>* begin,
                            const std::pair<uint32_t, uint32_t>* end,
                            uint32_t k) -> const std::pair<uint32_t, uint32_t>* {
    const auto* it =
        std::upper_bound(begin, end, k, [](uint32_t v, const auto& s) { return v < s.first; });
    return it == begin ? nullptr : it - 1;
  };
  uint32_t last = kNone, before_last = kNone;  // the two latest positions of T'
  for (const uint32_t t : cut_threads_) {
    const uint32_t c = count_[t];
    if (!started(t)) return false;  // Fork
    const uint32_t p = positions_[thread_start_[t] + c - 1];
    if (last == kNone || p > last) {
      before_last = last;
      last = p;
    } else if (before_last == kNone || p > before_last) {
      before_last = p;
    }
    // Fork of a child, Join, LW, Sync: every need of t's first c events met.
    for (uint32_t g = need_at_[t]; g < need_at_[t + 1]; ++g) {
      const NeedGroup& group = need_group_[g];
      const auto* step =
          last_step(need_steps_.data() + group.begin, need_steps_.data() + group.end, c - 1);
      if (step && step->second > count_[group.thread]) return false;
    }
    // Lock-1: a section t holds at its cut must be the last conflicting one of its lock in T'.
    const auto* held =
        last_step(held_steps_.data() + held_at_[t], held_steps_.data() + held_at_[t + 1], c - 1);
    for (uint32_t h = held ? held->second : kNone; h != kNone; h = held_[h].parent) {
      const Held& section = held_[h];
      for (uint32_t k = lock_at_[section.lock]; k < lock_at_[section.lock + 1]; ++k) {
        const LockUser& user = lock_users_[k];
        if (user.thread == t || count_[user.thread] == 0) continue;
        const auto* list = section.read ? write_sections_.data() : sections_.data();
        const auto* later =
            section.read
                ? last_step(list + user.write_begin, list + user.write_end, count_[user.thread] - 1)
                : last_step(list + user.begin, list + user.end, count_[user.thread] - 1);
        if (later && later->second > section.acquire) return false;
      }
    }
  }
  if (w.notion == Notion::Adjacent) {
    // The two latest threads' ends are the pair, and the second's thread has no event between.
    if (last != b || before_last != a) return false;
    const ThreadId tb = trace_.events[b].thread;
    return count_[tb] < 2 || positions_[thread_start_[tb] + count_[tb] - 2] < a;
  }
  for (const size_t i : {a, b}) {
    const ThreadId t = trace_.events[i].thread;
    if (rank_[i] != count_[t] || !started(t)) return false;
  }
  return true;
}

}  // namespace racepred::witness
