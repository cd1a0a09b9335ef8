#include "racepred/exact/search.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace racepred::exact {

bool MustHappenBefore::before(uint32_t e, uint32_t f) const {
  if (e == f || !trace_) return false;
  const uint32_t u = trace_->event(e).thread;
  return trace_->index_in_thread(e) < required_[size_t{f} * trace_->thread_count() + u];
}

bool MustHappenBefore::before_in_common(uint32_t e, uint32_t f) const {
  if (e == f || !trace_) return false;
  const uint32_t u = trace_->event(f).thread;
  return trace_->index_in_thread(f) >= can_precede_[size_t{e} * trace_->thread_count() + u];
}

namespace {

// A state is one key of `width_` words: the position (number of executed events) of every
// thread, then, for every variable that is read somewhere, its last write in canonical form.
// Lock holders follow from the positions. Word is uint16_t for traces below 65535 events.
//
// Pass 1 explores every reachable state depth-first (memoised). With Reorderings::Prefixes it
// records races and must-happen-before on the way. With Reorderings::Complete, pass 2 walks
// the states from the deepest up, marks those from which the whole trace can still be
// completed, and records only transitions into such states.
template <typename Word>
class Search {
 public:
  Search(const TraceIndex& trace, const SearchOptions& options)
      : t_(trace), o_(options), threads_(trace.thread_count()) {
    const uint32_t n = static_cast<uint32_t>(t_.size());
    // Variables that are read get a slot in the key.
    slot_of_.assign(t_.variable_count(), kNoIndex);
    initial_readers_.resize(t_.variable_count());
    readers_.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      const Event& e = t_.event(i);
      if (e.op != Op::Read) continue;
      if (slot_of_[e.target] == kNoIndex) slot_of_[e.target] = slots_++;
      const uint32_t w = t_.last_write(i);
      (w == kNoIndex ? initial_readers_[e.target] : readers_[w]).push_back(i);
    }
    width_ = threads_ + slots_;
    // Locks held by each thread after each of its positions: entry p of held_offsets_[u] is
    // where the locks held after p events start, entry p + 1 where they end. A lock y held in
    // write mode is stored as 2y, in read mode as 2y + 1.
    held_offsets_.resize(threads_);
    for (uint32_t u = 0; u < threads_; ++u) {
      std::vector<uint32_t> held;
      held_offsets_[u].assign(2, static_cast<uint32_t>(held_locks_.size()));
      for (uint32_t i : t_.thread_events(u)) {
        const Event& e = t_.event(i);
        const uint32_t entry = 2 * e.target + is_read_lock_op(e.op);
        if (is_acquire_op(e.op)) held.push_back(entry);
        if (is_release_op(e.op)) held.erase(std::find(held.begin(), held.end(), entry));
        held_locks_.insert(held_locks_.end(), held.begin(), held.end());
        held_offsets_[u].push_back(static_cast<uint32_t>(held_locks_.size()));
      }
    }
    can_precede_.assign(size_t{n} * threads_, 0);
    required_.assign(size_t{n} * threads_, std::numeric_limits<uint32_t>::max());
    table_.assign(1024, 0);
    mask_ = table_.size() - 1;
    next_.resize(threads_);
    current_.resize(width_);
    child_.resize(width_);
    grandchild_.resize(width_);
  }

  SearchResult run() {
    SearchResult result;
    result.notion = o_.notion;
    result.reorderings = o_.reorderings;
    // Root: nothing executed, every read variable holds its initial value.
    std::vector<Word> root(width_, 0);
    for (uint32_t x = 0; x < slot_of_.size(); ++x)
      if (slot_of_[x] != kNoIndex)
        root[threads_ + slot_of_[x]] = canonical(root.data(), x, kInitial);
    insert(root.data(), kNoIndex, kNoIndex);
    std::vector<uint32_t> stack{0};
    while (!stack.empty()) {
      const uint32_t s = stack.back();
      stack.pop_back();
      explore(s, stack);
    }
    if (o_.reorderings == Reorderings::Complete) complete_pass();
    result.states = states_;
    result.transitions = transitions_;
    finish(result);
    return result;
  }

 private:
  static constexpr Word kInitial = 0;  // "no write yet"; write i is stored as i + 1
  static constexpr Word kOther = std::numeric_limits<Word>::max();  // no pending read cares

  struct Found {
    uint32_t state;
    uint32_t first;  // order in the witness
    uint32_t second;
  };

  const Word* key(uint32_t s) const { return arena_.data() + size_t{s} * width_; }

  bool started(uint32_t u, const Word* k) const {
    const uint32_t f = t_.fork_of(u);
    return f == kNoIndex || k[t_.event(f).thread] > t_.index_in_thread(f);
  }

  bool pending(uint32_t i, const Word* k) const {
    return k[t_.event(i).thread] <= t_.index_in_thread(i);
  }

  // The last-write word of variable x for a key whose positions are `k`: kept only while some
  // pending read expects exactly that write, since reads compare nothing else.
  Word canonical(const Word* k, uint32_t x, Word value) const {
    if (value == kOther) return kOther;
    const auto& readers = value == kInitial ? initial_readers_[x] : readers_[value - 1];
    for (uint32_t r : readers)
      if (pending(r, k)) return value;
    return kOther;
  }

  // Thread u holds `lock` after `position` events: in write mode, or (any_mode) in either.
  bool holds(uint32_t u, uint32_t position, uint32_t lock, bool any_mode) const {
    const uint32_t* begin = held_locks_.data() + held_offsets_[u][position];
    const uint32_t* end = held_locks_.data() + held_offsets_[u][position + 1];
    for (const uint32_t* p = begin; p != end; ++p)
      if (*p == 2 * lock || (any_mode && *p == 2 * lock + 1)) return true;
    return false;
  }

  // A req or rreq that ends its thread: the thread waits for its lock for good (it never runs).
  bool pending_request(uint32_t i) const {
    const Event& e = t_.event(i);
    return is_request_op(e.op) && t_.index_in_thread(i) + 1 == t_.thread_events(e.thread).size();
  }
  // The events of thread u a reordering can run: all but a pending request.
  size_t runnable(uint32_t u) const {
    const auto& events = t_.thread_events(u);
    return events.size() - (!events.empty() && pending_request(events.back()) ? 1 : 0);
  }
  // No thread but i's holds i's lock, in either mode (a write acquire or request) or in write
  // mode (a read acquire or read request).
  bool lock_free_for(uint32_t i, const Word* k) const {
    const Event& e = t_.event(i);
    for (uint32_t v = 0; v < threads_; ++v)
      if (v != e.thread && holds(v, k[v], e.target, !is_read_mode_op(e.op))) return false;
    return true;
  }

  // Whether event i (the next event of its thread, which has started) may run in state k.
  bool enabled(uint32_t i, const Word* k) const {
    const Event& e = t_.event(i);
    switch (e.op) {
      case Op::Read: {
        const uint32_t w = t_.last_write(i);
        return k[threads_ + slot_of_[e.target]] == (w == kNoIndex ? kInitial : Word(w + 1));
      }
      case Op::Acquire:      // no other thread holds the lock, in either mode
      case Op::ReadAcquire:  // no other thread holds it in write mode
        return lock_free_for(i, k);
      case Op::Request:  // granted: its acquire follows and waits for the lock; pending: never
      case Op::ReadRequest:
        return !pending_request(i);
      case Op::Join:
        return k[e.target] == t_.thread_events(e.target).size();
      case Op::Recv:  // after every send on its object that precedes it in the trace
        for (const uint32_t j : t_.sends_before(i))
          if (k[t_.event(j).thread] <= t_.index_in_thread(j)) return false;
        return true;
      case Op::Send:
      case Op::Write:
      case Op::Release:
      case Op::ReadRelease:
      case Op::Fork:
        return true;
    }
    return false;
  }

  // current_ = key of s; next_[u] = next event of thread u if it has started, else kNoIndex.
  void load(uint32_t s) {
    std::copy(key(s), key(s) + width_, current_.begin());
    for (uint32_t u = 0; u < threads_; ++u) {
      const auto& events = t_.thread_events(u);
      next_[u] = current_[u] < events.size() && started(u, current_.data()) ? events[current_[u]]
                                                                            : kNoIndex;
    }
  }

  bool is_final(const Word* k) const {
    for (uint32_t u = 0; u < threads_; ++u)
      if (k[u] < runnable(u)) return false;
    return true;
  }

  // out = in after running event i.
  void step(const Word* in, uint32_t i, Word* out) const {
    std::copy(in, in + width_, out);
    const Event& e = t_.event(i);
    ++out[e.thread];
    if (e.is_access() && slot_of_[e.target] != kNoIndex) {
      Word& lw = out[threads_ + slot_of_[e.target]];
      lw = canonical(out, e.target, e.op == Op::Write ? Word(i + 1) : lw);
    }
  }

  void record_precede(uint32_t i, const Word* k) {
    uint32_t* precede = can_precede_.data() + size_t{i} * threads_;
    uint32_t* required = required_.data() + size_t{i} * threads_;
    for (uint32_t v = 0; v < threads_; ++v) {
      precede[v] = std::max<uint32_t>(precede[v], k[v]);
      required[v] = std::min<uint32_t>(required[v], k[v]);
    }
  }

  void record_enabled_pairs(uint32_t s) {
    for (uint32_t u = 0; u < threads_; ++u)
      for (uint32_t v = u + 1; v < threads_; ++v)
        if (next_[u] != kNoIndex && next_[v] != kNoIndex &&
            conflicting(t_.event(next_[u]), t_.event(next_[v])))
          record(next_[u], next_[v],
                 Found{s, std::min(next_[u], next_[v]), std::max(next_[u], next_[v])});
  }

  // Pass 1: every reachable state.
  void explore(uint32_t s, std::vector<uint32_t>& stack) {
    load(s);
    const bool prefixes = o_.reorderings == Reorderings::Prefixes;
    if (prefixes && o_.notion == RaceNotion::Enabled) record_enabled_pairs(s);
    bool unfinished = false, moved = false, waits_for_write = false;
    for (uint32_t u = 0; u < threads_; ++u) {
      const uint32_t i = next_[u];
      unfinished |= current_[u] < runnable(u);
      waits_for_write |= i != kNoIndex && t_.event(i).op == Op::Read;
      if (i == kNoIndex || !enabled(i, current_.data())) continue;
      moved = true;
      ++transitions_;
      step(current_.data(), i, child_.data());
      if (prefixes) {
        record_precede(i, current_.data());
        if (o_.notion == RaceNotion::Adjacent) record_adjacent(s, u, i, nullptr);
      }
      const uint32_t before = states_;
      const uint32_t c = insert(child_.data(), s, i);
      if (c == before) stack.push_back(c);
    }
    if (unfinished && !moved && !waits_for_write && stuck_states_++ == 0) stuck_state_ = s;
    if (o_.deadlocks) find_deadlocks(s);
  }

  // Whether event i is an acquire (either mode) that cannot run in the loaded state, or a
  // pending request of a lock another thread holds.
  bool blocked_acquire(uint32_t i) const {
    if (i == kNoIndex) return false;
    if (pending_request(i)) return !lock_free_for(i, current_.data());
    return is_acquire_op(t_.event(i).op) && !enabled(i, current_.data());
  }

  // Def. B.4 and B.7 at the loaded state s (with load(s) done).
  void find_deadlocks(uint32_t s) {
    std::vector<uint32_t> blocked;  // threads whose next event is a blocked acquire
    for (uint32_t u = 0; u < threads_; ++u)
      if (blocked_acquire(next_[u])) blocked.push_back(u);
    if (blocked.size() < 2) return;
    // Def. B.7: every other thread with events in the prefix is done or waits at a join or a
    // recv that cannot run (a read is always well-formed: its last write is no lock rule).
    bool others_stuck = true;
    for (uint32_t u = 0; u < threads_ && others_stuck; ++u) {
      if (current_[u] == 0 || std::find(blocked.begin(), blocked.end(), u) != blocked.end())
        continue;
      if (current_[u] == t_.thread_events(u).size()) continue;
      const uint32_t i = t_.thread_events(u)[current_[u]];
      const Op op = t_.event(i).op;
      others_stuck = (op == Op::Join || op == Op::Recv) && !enabled(i, current_.data());
    }
    if (others_stuck) {
      std::vector<uint32_t> acquires;
      for (uint32_t u : blocked) acquires.push_back(next_[u]);
      std::sort(acquires.begin(), acquires.end());
      // The key is a copy made before the call: as two by-value arguments, `acquires` and
      // `std::move(acquires)` could be built in either order, and g++ built the moved one first,
      // so every set got the empty key and only the first set found was kept.
      std::vector<uint32_t> key = acquires;
      record_deadlock(cross_, std::move(key), std::move(acquires), s);
    }
    // Def. B.4: the cycles of "u requests a lock v holds in its own critical section" among
    // the blocked threads, with distinct locks.
    const size_t n = blocked.size();
    std::vector<std::vector<uint32_t>> waits(n);
    for (size_t a = 0; a < n; ++a) {
      const Event& e = t_.event(next_[blocked[a]]);
      for (size_t b = 0; b < n; ++b)
        if (a != b && holds(blocked[b], current_[blocked[b]], e.target, !is_read_mode_op(e.op)))
          waits[a].push_back(static_cast<uint32_t>(b));
    }
    std::vector<uint32_t> path;
    for (uint32_t start = 0; start < n; ++start) {
      path.assign(1, start);
      cycles_from(s, blocked, waits, path);
    }
  }

  // Simple cycles through path[0] whose other nodes are greater than path[0] (each cycle once).
  void cycles_from(uint32_t s, const std::vector<uint32_t>& blocked,
                   const std::vector<std::vector<uint32_t>>& waits, std::vector<uint32_t>& path) {
    for (uint32_t b : waits[path.back()]) {
      if (b == path[0] && path.size() >= 2) {
        std::vector<uint32_t> cycle, locks;
        for (uint32_t a : path) {
          cycle.push_back(next_[blocked[a]]);
          locks.push_back(t_.event(next_[blocked[a]]).target);
        }
        std::sort(locks.begin(), locks.end());
        if (std::adjacent_find(locks.begin(), locks.end()) != locks.end()) continue;
        std::vector<uint32_t> key = cycle;
        std::sort(key.begin(), key.end());
        record_deadlock(cycles_, std::move(key), std::move(cycle), s);
        continue;
      }
      if (b <= path[0] || std::find(path.begin(), path.end(), b) != path.end()) continue;
      path.push_back(b);
      cycles_from(s, blocked, waits, path);
      path.pop_back();
    }
  }

  struct FoundDeadlock {
    uint32_t state;
    std::vector<uint32_t> acquires;
  };
  using DeadlockMap = std::map<std::vector<uint32_t>, FoundDeadlock>;

  static void record_deadlock(DeadlockMap& map, std::vector<uint32_t> key,
                              std::vector<uint32_t> acquires, uint32_t s) {
    map.try_emplace(std::move(key), FoundDeadlock{s, std::move(acquires)});
  }

  // Races with i (the next event of thread u, just run into child_) as the first of the two
  // adjacent events: the next event f of another thread conflicts with i and may run right
  // after it. With `complete`, the state after f must be able to complete the trace.
  void record_adjacent(uint32_t s, uint32_t u, uint32_t i, const std::vector<bool>* complete) {
    const Event& e = t_.event(i);
    if (!e.is_access()) return;
    for (uint32_t v = 0; v < threads_; ++v) {
      const uint32_t f = next_[v];
      if (v == u || f == kNoIndex || !conflicting(e, t_.event(f))) continue;
      if (!enabled(f, child_.data())) continue;
      if (complete) {
        step(child_.data(), f, grandchild_.data());
        if (!(*complete)[find(grandchild_.data())]) continue;
      }
      record(i, f, Found{s, i, f});
    }
  }

  // Pass 2 (Reorderings::Complete): complete_[s] iff the whole trace can be run from s. The
  // state graph is acyclic (some position grows at every step), so deepest states go first.
  void complete_pass() {
    std::vector<std::vector<uint32_t>> by_depth;
    for (uint32_t s = 0; s < states_; ++s) {
      uint32_t depth = 0;
      for (uint32_t u = 0; u < threads_; ++u) depth += key(s)[u];
      if (depth >= by_depth.size()) by_depth.resize(depth + 1);
      by_depth[depth].push_back(s);
    }
    complete_.assign(states_, false);
    for (size_t d = by_depth.size(); d-- > 0;) {
      for (uint32_t s : by_depth[d]) {
        load(s);
        if (is_final(current_.data())) {
          complete_[s] = true;
          continue;
        }
        for (uint32_t u = 0; u < threads_; ++u) {
          const uint32_t i = next_[u];
          if (i == kNoIndex || !enabled(i, current_.data())) continue;
          step(current_.data(), i, child_.data());
          if (!complete_[find(child_.data())]) continue;
          complete_[s] = true;
          record_precede(i, current_.data());
          if (o_.notion == RaceNotion::Adjacent) record_adjacent(s, u, i, &complete_);
        }
        if (complete_[s] && o_.notion == RaceNotion::Enabled) record_enabled_pairs(s);
      }
    }
  }

  // Events from state s to the end of the trace, through complete states.
  std::vector<uint32_t> completion_from(uint32_t s) {
    std::vector<uint32_t> rest;
    while (true) {
      load(s);
      if (is_final(current_.data())) return rest;
      bool moved = false;
      for (uint32_t u = 0; u < threads_ && !moved; ++u) {
        const uint32_t i = next_[u];
        if (i == kNoIndex || !enabled(i, current_.data())) continue;
        step(current_.data(), i, child_.data());
        const uint32_t c = find(child_.data());
        if (!complete_[c]) continue;
        rest.push_back(i);
        s = c;
        moved = true;
      }
      if (!moved) return rest;  // not reached for complete states
    }
  }

  void record(uint32_t a, uint32_t b, const Found& found) {
    const uint64_t pair = (uint64_t{std::min(a, b)} << 32) | std::max(a, b);
    races_.try_emplace(pair, found);
  }

  uint64_t hash(const Word* k) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint32_t w = 0; w < width_; ++w) {
      h ^= k[w];
      h *= 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    }
    return h;
  }

  // Index of the state with key k (which must exist).
  uint32_t find(const Word* k) const {
    uint64_t slot = hash(k) & mask_;
    while (table_[slot] != 0) {
      const uint32_t s = table_[slot] - 1;
      if (std::equal(k, k + width_, key(s))) return s;
      slot = (slot + 1) & mask_;
    }
    return kNoIndex;
  }

  // Index of the state with key k, inserting it (with its parent) when new.
  uint32_t insert(const Word* k, uint32_t parent, uint32_t via) {
    uint64_t slot = hash(k) & mask_;
    while (table_[slot] != 0) {
      const uint32_t s = table_[slot] - 1;
      if (std::equal(k, k + width_, key(s))) return s;
      slot = (slot + 1) & mask_;
    }
    if (states_ >= o_.max_states)
      throw SearchLimitError(
          "racepred: error: exact: search stopped after " + std::to_string(states_) +
          " states (--max-states " + std::to_string(o_.max_states) +
          "): the trace has too many reorderings for the exact ground truth; use a smaller "
          "trace or raise --max-states");
    if ((arena_.size() + width_) * sizeof(Word) > o_.max_memory)
      throw SearchLimitError("racepred: error: exact: search stopped after " +
                             std::to_string(states_) + " states: their keys (" +
                             std::to_string(width_) + " words each: " + std::to_string(threads_) +
                             " threads and " + std::to_string(slots_) +
                             " variables that are read) exceed the memory budget of " +
                             std::to_string(o_.max_memory >> 20) +
                             " MiB (--max-memory); the trace is too large for the exact ground "
                             "truth");
    const uint32_t s = states_++;
    arena_.insert(arena_.end(), k, k + width_);
    parent_.push_back(parent);
    via_.push_back(via);
    table_[slot] = s + 1;
    if (uint64_t{states_} * 2 > table_.size()) grow();
    return s;
  }

  void grow() {
    table_.assign(table_.size() * 2, 0);
    mask_ = table_.size() - 1;
    for (uint32_t s = 0; s < states_; ++s) {
      uint64_t slot = hash(key(s)) & mask_;
      while (table_[slot] != 0) slot = (slot + 1) & mask_;
      table_[slot] = s + 1;
    }
  }

  std::vector<uint32_t> path_to(uint32_t s) const {
    std::vector<uint32_t> path;
    for (; parent_[s] != kNoIndex; s = parent_[s]) path.push_back(via_[s]);
    std::reverse(path.begin(), path.end());
    return path;
  }

  void finish(SearchResult& result) {
    std::vector<std::pair<uint64_t, Found>> sorted(races_.begin(), races_.end());
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [pair, found] : sorted) {
      result.races.emplace_back(static_cast<uint32_t>(pair >> 32), static_cast<uint32_t>(pair));
      if (!o_.witnesses) continue;
      RaceWitness w;
      w.prefix = path_to(found.state);
      w.first = found.first;
      w.second = found.second;
      uint32_t end = found.state;
      if (o_.notion == RaceNotion::Adjacent) {
        w.prefix.push_back(found.first);
        w.prefix.push_back(found.second);
        load(found.state);
        step(current_.data(), found.first, child_.data());
        step(child_.data(), found.second, grandchild_.data());
        end = find(grandchild_.data());
      }
      if (o_.reorderings == Reorderings::Complete) w.completion = completion_from(end);
      result.witnesses.push_back(std::move(w));
    }
    for (const auto& [key, found] : cycles_)
      result.deadlocks.push_back(DeadlockWitness{path_to(found.state), found.acquires, false});
    for (const auto& [key, found] : cross_)
      result.cross_thread_deadlocks.push_back(
          DeadlockWitness{path_to(found.state), found.acquires, true});
    result.stuck_states = stuck_states_;
    if (stuck_states_ > 0) result.stuck_witness = path_to(stuck_state_);
    result.mhb = MustHappenBefore(&t_, std::move(required_), std::move(can_precede_));
  }

  const TraceIndex& t_;
  SearchOptions o_;
  uint32_t threads_;
  uint32_t slots_ = 0;
  uint32_t width_ = 0;
  std::vector<uint32_t> slot_of_;
  std::vector<std::vector<uint32_t>> initial_readers_;  // per variable
  std::vector<std::vector<uint32_t>> readers_;          // per write: reads whose last write it is
  std::vector<std::vector<uint32_t>> held_offsets_;     // per thread, per position (+1)
  std::vector<uint32_t> held_locks_;

  std::vector<Word> arena_;
  std::vector<uint32_t> parent_, via_;  // first discovery: parent state and the event run
  std::vector<uint32_t> table_;         // state index + 1, 0 = empty
  uint64_t mask_ = 0;
  uint32_t states_ = 0;
  uint64_t transitions_ = 0;
  uint64_t stuck_states_ = 0;
  uint32_t stuck_state_ = 0;
  std::vector<bool> complete_;
  std::vector<uint32_t> can_precede_, required_;
  std::unordered_map<uint64_t, Found> races_;
  DeadlockMap cycles_, cross_;  // Def. B.4 and Def. B.7, by their sorted acquires

  std::vector<uint32_t> next_;
  std::vector<Word> current_, child_, grandchild_;
};

}  // namespace

SearchResult search(const TraceIndex& trace, const SearchOptions& options) {
  // The tables sized events × threads come before any state: they are in the budget too.
  const uint64_t table_bytes = uint64_t{2} * trace.size() * trace.thread_count() * sizeof(uint32_t);
  if (table_bytes > options.max_memory)
    throw SearchLimitError("racepred: error: exact: the trace needs " +
                           std::to_string(table_bytes >> 20) + " MiB of tables (" +
                           std::to_string(trace.size()) + " events x " +
                           std::to_string(trace.thread_count()) +
                           " threads) before the search starts, more than the memory budget of " +
                           std::to_string(options.max_memory >> 20) +
                           " MiB (--max-memory); the trace is too large for the exact ground "
                           "truth");
  if (trace.size() < 0xFFFF && trace.thread_count() < 0xFFFF) {
    return Search<uint16_t>(trace, options).run();
  }
  return Search<uint32_t>(trace, options).run();
}

}  // namespace racepred::exact
