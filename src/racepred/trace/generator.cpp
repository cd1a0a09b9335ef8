#include "racepred/trace/generator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include "racepred/trace/error.hpp"

namespace racepred {

// ---------------------------------------------------------------------------------------------
// Rng

namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

// p as a 53-bit threshold: chance(p) compares 53 random bits against it. Integer arithmetic on
// an exactly representable product, so the same on every IEEE-754 machine.
uint64_t threshold(double p) {
  if (!(p > 0)) return 0;
  if (p >= 1) return uint64_t{1} << 53;
  return static_cast<uint64_t>(std::ldexp(p, 53));
}
}  // namespace

Rng::Rng(uint64_t seed) {
  uint64_t x = seed;
  for (uint64_t& s : s_) s = splitmix64(x);
}

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

uint64_t Rng::below(uint64_t bound) {
  // Multiply-shift (Lemire) without rejection: the bias is below bound / 2^64.
  return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * bound) >> 64);
}

bool Rng::chance(double p) {
  return (next() >> 11) < threshold(p);
}

// ---------------------------------------------------------------------------------------------
// Options

std::string_view fork_shape_name(ForkShape shape) {
  switch (shape) {
    case ForkShape::None:
      return "none";
    case ForkShape::Fork:
      return "fork";
    case ForkShape::ForkJoin:
      return "fork-join";
    case ForkShape::Nested:
      return "nested";
    case ForkShape::Random:
      return "random";
    case ForkShape::Churn:
      return "churn";
  }
  return "?";
}

bool parse_fork_shape(std::string_view name, ForkShape& shape) {
  for (ForkShape s : {ForkShape::None, ForkShape::Fork, ForkShape::ForkJoin, ForkShape::Nested,
                      ForkShape::Random, ForkShape::Churn})
    if (name == fork_shape_name(s)) {
      shape = s;
      return true;
    }
  return false;
}

std::string check_generator_options(const GeneratorOptions& o) {
  if (o.threads == 0) return "--threads must be at least 1";
  if (o.threads > 1'000'000) return "--threads must be at most 1000000";
  if (o.variables == 0) return "--variables must be at least 1";
  if (o.variables > 100'000'000) return "--variables must be at most 100000000";
  if (o.locks > 100'000'000) return "--locks must be at most 100000000";
  if (o.locations > 100'000'000) return "--locations must be at most 100000000";
  if (o.stale_variables >= o.variables) return "stale_variables must be below --variables";
  if (o.hot_variables > o.variables) return "hot_variables must be at most --variables";
  if (o.live == 0) return "--live must be at least 1";
  if (o.sync_share > 0 && o.sync_objects == 0) return "--sync-objects must be at least 1";
  if (o.sync_objects > 100'000'000) return "--sync-objects must be at most 100000000";
  if (!(o.skew >= 1 && o.skew <= 100)) return "--skew must be between 1 and 100";
  if (o.unguarded_write_share != -1 &&
      !(o.unguarded_write_share >= 0 && o.unguarded_write_share <= 1))
    return "--unguarded-write-share must be between 0 and 1";
  for (auto [name, p] : {std::pair{"--cs-share", o.cs_share},
                         {"--write-share", o.write_share},
                         {"--read-lock-share", o.read_lock_share},
                         {"--sync-share", o.sync_share},
                         {"--local-share", o.local_share},
                         {"--guarded-share", o.guarded_share},
                         {"--switch-share", o.switch_share},
                         {"forked_share", o.forked_share},
                         {"fork_share", o.fork_share},
                         {"join_share", o.join_share},
                         {"release_chance", o.release_chance},
                         {"nest_chance", o.nest_chance},
                         {"hot_share", o.hot_share}})
    if (!(p >= 0 && p <= 1)) return std::string(name) + " must be between 0 and 1";
  return {};
}

// ---------------------------------------------------------------------------------------------
// Presets

namespace {
struct Preset {
  const char* name;
  const char* words;
  uint64_t events;
  uint32_t threads, variables, locks, nesting;
  ForkShape shape;
  double skew;
  uint32_t live;
};
// Rows of the cross-thread paper's Fig. 11 (events E, threads T, memory locations M, locks L),
// events and locations scaled down so that every engine runs each preset in seconds here.
constexpr Preset kPresets[] = {
    {"tradebeans",
     "tradebeans/tradesoap: 236 threads, 6.1K locks, 2.8M locations (1/4 scale: "
     "10M events, 700K variables)",
     10'000'000, 236, 700'000, 6'100, 3, ForkShape::ForkJoin, 2, 8},
    {"xalan",
     "xalan: 9 threads, 2.5K locks, 4.4M locations (1/12 scale: 10M events, 1M "
     "variables, hot variables)",
     10'000'000, 9, 1'000'000, 2'500, 3, ForkShape::ForkJoin, 3, 8},
    {"cassandra",
     "cassandra: 178 threads, 60.5K locks, 9.9M locations (1/26 scale: 10M events, "
     "1M variables)",
     10'000'000, 178, 1'000'000, 60'500, 2, ForkShape::ForkJoin, 2, 8},
    {"sor",
     "sor: 5 threads, 2 locks, 1M locations, 607M events (full size: 600M events, a "
     "trace of about 9 GB)",
     600'000'000, 5, 1'000'000, 2, 1, ForkShape::ForkJoin, 1, 8},
    {"goroutines", "Go-style churn: 100,000 short-lived threads, at most 64 alive, 2M events",
     2'000'000, 100'000, 10'000, 64, 2, ForkShape::Churn, 2, 64},
    {"threads20k", "20,000 threads forked by T0 and all alive (the fork shape), 1M events",
     1'000'000, 20'000, 10'000, 64, 2, ForkShape::Fork, 1, 8},
};
}  // namespace

bool apply_generator_preset(std::string_view name, GeneratorOptions& o) {
  for (const Preset& p : kPresets) {
    if (name != p.name) continue;
    o.events = p.events;
    o.threads = p.threads;
    o.variables = p.variables;
    o.locks = p.locks;
    o.nesting = p.nesting;
    o.shape = p.shape;
    o.skew = p.skew;
    o.live = p.live;
    return true;
  }
  return false;
}

std::string generator_presets_help() {
  std::string s;
  for (const Preset& p : kPresets)
    s.append("  ").append(p.name).append(": ").append(p.words).append("\n");
  return s;
}

// ---------------------------------------------------------------------------------------------
// Generator

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr double kNestedForkChance = 0.5;
constexpr double kEarlyJoinChance = 0.2;           // with early_joins, when a child can be joined
constexpr uint32_t kReadMode = uint32_t{1} << 31;  // in ThreadState::held: held in read mode
constexpr int kLockProbes = 4;                     // random probes for a free lock before giving up
constexpr double kIdleChildChance = 0.125;         // random: a forked thread never runs
constexpr EventId kStaleAfter = 64;                // stale variables: after this many events…
constexpr uint64_t kStaleRarity = 2000;            // …only one access in this many keeps one

class Generator {
 public:
  Generator(const GeneratorOptions& options, Symbols& symbols, EventConsumer& out)
      : o_(options), symbols_(symbols), out_(out), rng_(options.seed) {
    const uint32_t n = o_.threads;
    threads_.resize(n);
    thread_ids_.assign(n, kNone);
    variable_ids_.assign(o_.variables, kNone);
    lock_ids_.assign(o_.locks, kNone);
    if (o_.sync_share > 0) {
      sync_ids_.assign(o_.sync_objects, kNone);
      if (o_.sync_on_locks && o_.sync_objects > o_.locks) lock_ids_.resize(o_.sync_objects, kNone);
    }
    holder_.assign(o_.locks, kNone);
    readers_.assign(o_.locks, 0);
    sites_ = o_.locations ? o_.locations
                          : static_cast<uint32_t>(std::clamp<uint64_t>(
                                2ull * o_.variables + 2ull * o_.locks, 16, 9999));
    location_ids_.assign(sites_ + 1, kNone);

    // Variables: a shared pool [0, shared_) and, when there are enough, a pool of thread-local
    // variables [shared_, variables) where variable shared_ + i belongs to thread i mod n.
    const uint32_t local_pool = o_.local_share > 0 && o_.variables >= 2 * n ? o_.variables / 2 : 0;
    shared_ = o_.variables - local_pool;
    // Shared variable v is guarded by lock v mod locks; local variable shared_ + i is thread
    // (i mod n)'s. Counts per lock and per thread, so that picking one needs no division.
    guarded_count_.resize(o_.locks);
    for (uint32_t l = 0; l < o_.locks; ++l)
      guarded_count_[l] = l < shared_ ? (shared_ - l + o_.locks - 1) / o_.locks : 0;
    local_count_.resize(n);
    for (uint32_t t = 0; t < n; ++t)
      local_count_[t] = t < local_pool ? (local_pool - t + n - 1) / n : 0;

    write_threshold_ = threshold(o_.write_share);
    unguarded_write_threshold_ =
        o_.unguarded_write_share < 0 ? write_threshold_ : threshold(o_.unguarded_write_share);
    local_threshold_ = threshold(o_.local_share);
    guarded_threshold_ = threshold(o_.guarded_share);
    switch_threshold_ = threshold(o_.switch_share);
    release_threshold_ = threshold(o_.release_chance);
    nest_threshold_ = threshold(o_.nest_chance);
    // Accesses per critical section k_in ~ (1 - r) / r; between critical sections k_out
    // ~ (1 - a) / a. Choose the acquire chance a so that k_in / (k_in + k_out) = cs_share.
    double acquire = 0;
    if (o_.cs_share >= 1) {
      acquire = 1;
    } else if (o_.cs_share > 0) {
      const double k_in = (1 - o_.release_chance) / std::max(o_.release_chance, 1e-9);
      const double k_out = k_in * (1 - o_.cs_share) / o_.cs_share;
      acquire = 1 / (1 + k_out);
    }
    acquire_threshold_ = (o_.nesting > 0 && o_.locks > 0) ? threshold(acquire) : 0;

    hot_threshold_ = threshold(o_.hot_share);
    sync_threshold_ = threshold(o_.sync_share);
    fork_threshold_ = threshold(o_.fork_share);
    join_threshold_ = threshold(o_.join_share);
    if (o_.shape == ForkShape::Random) {
      start(0);
      for (uint32_t t = 1; t < n; ++t) {
        if (rng_.chance(o_.forked_share))
          waiting_.push_back(t);
        else
          start(t);
      }
      return;
    }
    // Fork tree.
    const bool forks = o_.shape != ForkShape::None && n > 1;
    for (uint32_t t = 1; t < n && forks; ++t) {
      threads_[t].parent = o_.shape == ForkShape::Nested ? static_cast<uint32_t>(rng_.below(t)) : 0;
      threads_[threads_[t].parent].children.push_back(t);
      ++pending_forks_;
    }
    joins_ = (o_.shape == ForkShape::ForkJoin || o_.shape == ForkShape::Nested ||
              o_.shape == ForkShape::Churn)
                 ? n - 1
                 : 0;
    churn_ = o_.shape == ForkShape::Churn;
    // churn: a thread's life is 1 + below(2 * mean) events, the mean such that the threads
    // together fill the trace.
    mean_life_ = std::max<uint64_t>(2, o_.events / std::max<uint32_t>(n, 1));
    if (mean_life_ > 4) mean_life_ -= 2;  // the thread's fork and join
    skew_ = o_.skew;
    if (forks) {
      start(0);
    } else {
      for (uint32_t t = 0; t < n; ++t) start(t);
    }
  }

  void run() {
    uint64_t remaining = o_.events;
    current_ = runnable_.size() == 1 ? runnable_[0] : runnable_[rng_.below(runnable_.size())];
    while (remaining > reserve()) {
      step(current_, remaining);
      --remaining;
      if (churn_ && current_ != 0) retire_if_done(current_);
      if (runnable_.size() > 1 && (rng_.next() >> 11) < switch_threshold_)
        current_ = runnable_[rng_.below(runnable_.size())];
    }
    close();
    out_.on_end();
  }

 private:
  struct ThreadState {
    uint32_t parent = kNone;
    std::vector<uint32_t> children;  // in fork order
    size_t forked = 0;               // children forked so far
    std::vector<uint32_t> held;      // locks held, innermost last
    size_t joined = 0;               // children joined so far (in fork order)
    bool finished = false;           // joined by its parent (random: by any thread)
    bool started = false;            // runs from the start or was forked
    uint64_t steps = 0;              // churn: events so far
    uint64_t life = 0;               // churn: events to run
    bool done = false;               // churn: ran its life, waits for the join
  };

  uint64_t reserve() const { return pending_forks_ + joins_ + (o_.release_at_end ? held_ : 0); }

  void start(uint32_t t) {
    threads_[t].started = true;
    runnable_.push_back(t);
  }

  void step(uint32_t t, uint64_t remaining) {
    ThreadState& ts = threads_[t];
    if (o_.shape == ForkShape::Random) {
      if (!waiting_.empty() && bits() < fork_threshold_) {
        fork_waiting(t);
        return;
      }
      if (bits() < join_threshold_ && join_any(t)) return;
    }
    if (churn_) {
      ++ts.steps;
      if (t == 0) {
        if (done_head_ < done_.size()) {  // join the thread that finished first
          const uint32_t child = done_[done_head_++];
          threads_[child].finished = true;
          ++ts.joined;
          --joins_;
          --alive_;
          emit(Op::Join, t, child, location_of(6, child));
          return;
        }
        if (ts.forked < ts.children.size() && alive_ < o_.live) {
          threads_[ts.children[ts.forked]].life = 1 + rng_.below(2 * mean_life_);
          fork(t);
          ++alive_;
          return;
        }
      } else if (ts.steps > ts.life && !ts.held.empty()) {
        release(t);  // life over: only closes its critical sections
        return;
      }
    } else if (ts.forked < ts.children.size() &&
               (o_.shape != ForkShape::Nested || rng_.chance(kNestedForkChance))) {
      fork(t);
      return;
    }
    if (!churn_ && o_.early_joins && joins_ > 0 && ts.joined < ts.forked &&
        can_join(ts.children[ts.joined]) && rng_.chance(kEarlyJoinChance)) {
      join(t);
      return;
    }
    if (sync_threshold_ != 0 && bits() < sync_threshold_) {
      const uint32_t o = static_cast<uint32_t>(rng_.below(o_.sync_objects));
      emit(rng_.chance(0.5) ? Op::Send : Op::Recv, t, o, location_of(7, o));
      return;
    }
    const bool can_open = remaining >= reserve() + 2;  // the acquire and, later, its release
    if (!ts.held.empty()) {
      if (bits() < release_threshold_) {
        release(t);
        return;
      }
      if (ts.held.size() < o_.nesting && can_open && bits() < nest_threshold_ && acquire(t)) return;
    } else if (can_open && acquire_threshold_ && bits() < acquire_threshold_ && acquire(t)) {
      return;
    }
    access(t);
  }

  uint64_t bits() { return rng_.next() >> 11; }

  // churn: a thread that ran its life and holds no lock stops and waits for T0's join.
  void retire_if_done(uint32_t t) {
    ThreadState& ts = threads_[t];
    if (ts.done || ts.finished || ts.steps < ts.life || !ts.held.empty()) return;
    ts.done = true;
    runnable_.erase(std::find(runnable_.begin(), runnable_.end(), t));
    done_.push_back(t);
    current_ = 0;  // T0 joins it and forks the next one
  }

  // A child may be joined once it holds no lock and has forked and joined all its children.
  bool can_join(uint32_t c) const {
    const ThreadState& cs = threads_[c];
    return cs.held.empty() && cs.forked == cs.children.size() && cs.joined == cs.children.size();
  }

  void join(uint32_t t) {
    ThreadState& ts = threads_[t];
    const uint32_t child = ts.children[ts.joined++];
    threads_[child].finished = true;
    if (auto it = std::find(runnable_.begin(), runnable_.end(), child); it != runnable_.end())
      runnable_.erase(it);
    --joins_;
    emit(Op::Join, t, child, location_of(6, child));
  }

  void fork(uint32_t t) {
    ThreadState& ts = threads_[t];
    const uint32_t child = ts.children[ts.forked++];
    --pending_forks_;
    emit(Op::Fork, t, child, location_of(3, child));
    start(child);
  }

  // random: t forks a waiting thread, which sometimes never runs (a fork without events).
  void fork_waiting(uint32_t t) {
    const size_t k = rng_.below(waiting_.size());
    const uint32_t child = waiting_[k];
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(k));
    threads_[child].started = true;
    emit(Op::Fork, t, child, location_of(3, child));
    if (!rng_.chance(kIdleChildChance)) start(child);
  }

  // random: t joins a started thread other than itself and T0 that is not joined yet (with
  // release_at_end, one that holds no lock). The joined thread runs no more.
  bool join_any(uint32_t t) {
    uint32_t candidates = 0, chosen = kNone;
    for (uint32_t u = 1; u < o_.threads; ++u) {
      const ThreadState& us = threads_[u];
      if (u == t || !us.started || us.finished || (o_.release_at_end && !us.held.empty())) continue;
      if (rng_.below(++candidates) == 0) chosen = u;  // reservoir: uniform among candidates
    }
    if (chosen == kNone) return false;
    threads_[chosen].finished = true;
    const auto it = std::find(runnable_.begin(), runnable_.end(), chosen);
    if (it != runnable_.end()) runnable_.erase(it);
    emit(Op::Join, t, chosen, location_of(6, chosen));
    return true;
  }

  // A lock is taken in write mode (held by one thread: holder_) or in read mode (readers_
  // counts its readers; `held` marks it with kReadMode). No thread takes a lock it holds.
  bool acquire(uint32_t t) {
    const bool read = o_.read_lock_share > 0 && rng_.chance(o_.read_lock_share);
    std::vector<uint32_t>& held = threads_[t].held;
    for (int probe = 0; probe < kLockProbes; ++probe) {
      const uint32_t l = static_cast<uint32_t>(rng_.below(o_.locks));
      if (holder_[l] != kNone) continue;
      if (read ? std::find(held.begin(), held.end(), l | kReadMode) != held.end()
               : readers_[l] != 0)
        continue;
      if (read)
        ++readers_[l];
      else
        holder_[l] = t;
      held.push_back(read ? l | kReadMode : l);
      ++held_;
      emit(read ? Op::ReadAcquire : Op::Acquire, t, l, location_of(1, l));
      return true;
    }
    return false;
  }

  void release(uint32_t t) {
    std::vector<uint32_t>& held = threads_[t].held;
    size_t k = held.size() - 1;
    if (!o_.nested_releases && held.size() > 1) k = rng_.below(held.size());
    const uint32_t l = held[k] & ~kReadMode;
    const bool read = held[k] & kReadMode;
    held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
    if (read)
      --readers_[l];
    else
      holder_[l] = kNone;
    --held_;
    emit(read ? Op::ReadRelease : Op::Release, t, l, location_of(2, l));
  }

  void access(uint32_t t) {
    const ThreadState& ts = threads_[t];
    uint32_t v;
    uint64_t write_threshold = write_threshold_;
    if (!ts.held.empty()) {
      v = bits() < guarded_threshold_ ? guarded_by(ts.held[rng_.below(ts.held.size())] & ~kReadMode)
                                      : random_shared();
    } else if (bits() < local_threshold_) {
      v = local_of(t);
    } else {
      v = random_shared();
      write_threshold = unguarded_write_threshold_;
    }
    if (o_.hot_variables && bits() < hot_threshold_)
      v = static_cast<uint32_t>(rng_.below(o_.hot_variables));
    if (v < o_.stale_variables && next_id_ > kStaleAfter && rng_.below(kStaleRarity) != 0)
      v = o_.stale_variables + static_cast<uint32_t>(rng_.below(o_.variables - o_.stale_variables));
    const bool write = bits() < write_threshold;
    emit(write ? Op::Write : Op::Read, t, v, location_of(write ? 5 : 4, v));
  }

  uint32_t random_shared() {
    if (skew_ == 1) return static_cast<uint32_t>(rng_.below(shared_));
    const double u = std::ldexp(static_cast<double>(rng_.next() >> 11), -53);  // [0, 1)
    return std::min(shared_ - 1, static_cast<uint32_t>(std::pow(u, skew_) * shared_));
  }

  uint32_t guarded_by(uint32_t lock) {
    const uint32_t count = guarded_count_[lock];
    if (count == 0) return random_shared();
    return lock + o_.locks * static_cast<uint32_t>(rng_.below(count));
  }

  uint32_t local_of(uint32_t t) {
    const uint32_t count = local_count_[t];
    if (count == 0) return random_shared();
    return shared_ + t + o_.threads * static_cast<uint32_t>(rng_.below(count));
  }

  // A site number in [1, sites]: a few sites per (operation kind, target), so that a variable
  // is accessed from a handful of places as in real programs.
  uint32_t location_of(uint32_t kind, uint32_t target) {
    uint64_t h = (uint64_t{target} << 3 | kind) * 0x9E3779B97F4A7C15ull;
    return 1 + static_cast<uint32_t>(((h >> 32) * sites_) >> 32);
  }

  // Closing: outstanding forks, then releases, then joins (children before their parents).
  void close() {
    if (churn_) {  // the threads not forked yet: each forked and joined at once (no pile-up)
      ThreadState& main = threads_[0];
      while (main.forked < main.children.size()) {
        const uint32_t child = main.children[main.forked];
        fork(0);
        threads_[child].finished = true;
        runnable_.erase(std::find(runnable_.begin(), runnable_.end(), child));
        --joins_;
        emit(Op::Join, 0, child, location_of(6, child));
      }
    }
    for (uint32_t t = 0; t < o_.threads; ++t)
      while (threads_[t].forked < threads_[t].children.size()) fork(t);
    if (o_.release_at_end)
      for (uint32_t t = 0; t < o_.threads; ++t)
        while (!threads_[t].held.empty()) release(t);
    if (joins_)
      for (uint32_t t = o_.threads - 1; t >= 1; --t) {
        if (threads_[t].finished) continue;
        emit(Op::Join, threads_[t].parent, t, location_of(6, t));
        --joins_;
      }
  }

  void emit(Op op, uint32_t thread, uint32_t target, uint32_t site) {
    Event e;
    e.op = op;
    e.thread = thread_id(thread);
    switch (op) {
      case Op::Read:
      case Op::Write:
        e.target = intern(variable_ids_, symbols_.variables, 'V', target);
        break;
      case Op::Acquire:
      case Op::Release:
      case Op::ReadAcquire:
      case Op::ReadRelease:
      case Op::Request:
      case Op::ReadRequest:
        e.target = intern(lock_ids_, symbols_.locks, 'L', target);
        break;
      case Op::Send:
      case Op::Recv:
        e.target = o_.sync_on_locks ? intern(lock_ids_, symbols_.locks, 'L', target)
                                    : intern(sync_ids_, symbols_.locks, 'S', target);
        break;
      case Op::Fork:
      case Op::Join:
        e.target = thread_id(target);
        break;
    }
    e.location = intern(location_ids_, symbols_.locations, 0, site);
    out_.on_event(next_id_, e, static_cast<uint32_t>(next_id_));
    ++next_id_;
  }

  uint32_t thread_id(uint32_t t) { return intern(thread_ids_, symbols_.threads, 'T', t); }

  // Name "<prefix><n>" (no prefix when prefix is 0), interned on first use.
  static uint32_t intern(std::vector<uint32_t>& ids, SymbolTable& table, char prefix, uint32_t n) {
    uint32_t& id = ids[n];
    if (id == kNone) {
      char buf[16];
      char* p = buf;
      if (prefix) *p++ = prefix;
      p = std::to_chars(p, buf + sizeof buf, n).ptr;
      id = table.intern(std::string_view(buf, static_cast<size_t>(p - buf)));
    }
    return id;
  }

  const GeneratorOptions& o_;
  Symbols& symbols_;
  EventConsumer& out_;
  Rng rng_;

  std::vector<ThreadState> threads_;
  std::vector<uint32_t> runnable_;
  std::vector<uint32_t> waiting_;  // random: threads not forked yet
  std::vector<uint32_t> holder_;   // per lock: the generator's thread number holding it
  std::vector<uint32_t> readers_;  // per lock: threads holding it in read mode
  uint32_t current_ = 0;
  uint64_t pending_forks_ = 0;
  uint64_t joins_ = 0;
  uint64_t held_ = 0;  // locks held, all threads
  bool churn_ = false;
  uint64_t mean_life_ = 2;
  uint32_t alive_ = 0;          // churn: forked, not yet joined
  std::vector<uint32_t> done_;  // churn: threads that ran their life, in order
  size_t done_head_ = 0;        // done_[done_head_…] wait for their join
  double skew_ = 1;
  uint32_t shared_ = 1;
  uint32_t sites_ = 16;
  EventId next_id_ = 1;

  uint64_t write_threshold_, unguarded_write_threshold_, local_threshold_, guarded_threshold_,
      switch_threshold_;
  uint64_t release_threshold_, nest_threshold_, acquire_threshold_;
  uint64_t fork_threshold_ = 0, join_threshold_ = 0, hot_threshold_ = 0, sync_threshold_ = 0;

  std::vector<uint32_t> guarded_count_, local_count_;
  std::vector<uint32_t> thread_ids_, variable_ids_, lock_ids_, sync_ids_, location_ids_;
};

}  // namespace

void generate_events(const GeneratorOptions& options, Symbols& symbols, EventConsumer& consumer) {
  if (std::string problem = check_generator_options(options); !problem.empty())
    throw UsageError(problem);
  Generator(options, symbols, consumer).run();
}

Trace generate_trace(const GeneratorOptions& options) {
  Trace trace;
  TraceCollector collector(trace);
  generate_events(options, trace.symbols, collector);
  return trace;
}

}  // namespace racepred
