// Random well-formed traces (Def. 3.2 of Sulzmann and Thiemann), seeded and reproducible on every
// machine. The generator streams: its memory depends on threads, variables and locks, never on
// events.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "racepred/trace/trace.hpp"

namespace racepred {

// How threads come to life and end.
enum class ForkShape {
  None,      // every thread runs from the start; no fork, no join
  Fork,      // the main thread T0 forks the others early; no join
  ForkJoin,  // T0 forks the others early and joins them all at the end
  Nested,    // thread t > 0 is forked by a random earlier thread at a random point of its run
             // and joined by it at the end (children before their parents)
  // Free form, for tests that want every corner of Def. 3.2: each thread t > 0 waits for a fork
  // with probability forked_share (the others run from the start, next to forked ones); any
  // running thread may fork a waiting thread at any point (the child sometimes never runs),
  // and join any other started thread but T0 at any point (it ends there, holding its locks
  // unless release_at_end). Forks and joins are not reserved: some threads are never forked.
  Random,
  Churn,  // short-lived threads: T0 keeps at most `live` others alive, forks a new one when
          // there is room, and joins each once it has run its life (about events / threads
          // events); like goroutines or a thread pool's tasks
};

std::string_view fork_shape_name(ForkShape shape);
// Parses "none", "fork", "fork-join", "nested", "random", "churn"; returns false for anything else.
bool parse_fork_shape(std::string_view name, ForkShape& shape);

struct GeneratorOptions {
  uint64_t seed = 1;
  uint32_t threads = 4;
  // Total number of events. Exact, unless the fork/join skeleton alone needs more.
  uint64_t events = 1000;
  uint32_t variables = 1000;
  uint32_t locks = 16;
  uint32_t nesting = 2;  // most locks one thread holds at once (0: no critical sections)
  ForkShape shape = ForkShape::Fork;
  double cs_share = 0.6;     // share of accesses made while holding a lock
  double write_share = 0.3;  // share of accesses that are writes
  // Share of writes among the accesses to shared variables made outside critical sections
  // (read-mostly shared data, as in the Goldilocks benchmark); negative: write_share.
  double unguarded_write_share = -1;
  // Outside critical sections: share of accesses to the thread's own variables. The other
  // accesses pick any shared variable; they are where most races come from. With 0 every
  // variable is shared (no thread-local pool).
  double local_share = 0.8;
  // Inside critical sections: share of accesses to a variable guarded by a held lock
  // (shared variable v is guarded by lock v mod locks).
  double guarded_share = 0.9;
  // After each event, the probability that the scheduler picks a random thread instead of
  // letting the current one go on (1 - switch_share is the burst tendency).
  double switch_share = 0.3;
  // Distinct locations (small integers from 1); 0 picks a number from variables and locks.
  uint32_t locations = 0;
  // Release every held lock at the end (all critical sections closed). When false, threads
  // may end holding locks, which Def. 3.2 allows.
  bool release_at_end = true;
  // fork-join and nested: a thread may join a child in the middle of the trace (also inside a
  // critical section, which makes cross-thread critical sections), once the child holds no
  // lock and has joined its own children. Off by default: long traces would lose threads.
  bool early_joins = false;
  // Releases: the innermost held lock (nested critical sections), or, when false, any held lock
  // (overlapping critical sections, which Def. 3.2 allows).
  bool nested_releases = true;
  // Inside a critical section, per step: the chance to release a lock (a section lasts about
  // 1 / release_chance steps) and the chance to open a nested one (up to `nesting`).
  double release_chance = 0.25;
  double nest_chance = 0.15;
  // random: share of the threads t > 0 that wait for a fork; per step of a thread, the chance
  // that it forks a waiting thread, and the chance that it joins another started thread.
  double forked_share = 0.5;
  double fork_share = 0.08;
  double join_share = 0.05;
  // Variables [0, stale_variables) are accessed only among the first 64 events and then
  // rarely (1 in 2000 accesses): old per-variable records, for engines that trim history.
  uint32_t stale_variables = 0;
  // Share of accesses that go to one of the variables [0, hot_variables) instead (benchmarks:
  // a few variables under many lock sets). 0 variables: off.
  uint32_t hot_variables = 0;
  double hot_share = 0;
  // churn: most threads besides T0 alive at once.
  uint32_t live = 8;
  // Skew of the shared variables' popularity: variable v of n is picked with u^skew * n for u
  // uniform in [0,1), so 1 is uniform and larger values make a few variables hot (a power law,
  // as in real programs where a few fields take most accesses).
  double skew = 1;
  // Share of lock acquires made in read (shared) mode: racq/rrel, held by any number of
  // readers at once. 0 (the default) draws no random number for it, so existing seeds give
  // the same traces.
  double read_lock_share = 0;
  // Share of steps that are a send or a recv (half each) on one of `sync_objects` sync objects,
  // named S<n>, or L<n> with sync_on_locks (a name used both as a lock and a sync object).
  // 0 (the default) draws no random number for it, so existing seeds give the same traces.
  double sync_share = 0;
  uint32_t sync_objects = 2;
  bool sync_on_locks = false;
};

// Named shapes modelled on rows of the cross-thread paper's benchmark table (Fig. 11: events,
// threads, memory locations, locks), scaled to a 2-core / 24 GB machine. Applies the preset to
// `options` (the caller then overrides what the user gave); false for an unknown name.
bool apply_generator_preset(std::string_view name, GeneratorOptions& options);
// The preset names with a one-line description each, for --help and docs.
std::string generator_presets_help();

// Checks the options; returns an empty string when they are fine, else a message.
std::string check_generator_options(const GeneratorOptions& options);

// Streams the trace into `consumer` (ids 1, 2, …; line = id), interning names T<n>, V<n>,
// L<n> and numeric locations into `symbols` on first use, in the order a reader of the
// written STD would. Calls consumer.on_end() at the end. Throws UsageError for bad options.
void generate_events(const GeneratorOptions& options, Symbols& symbols, EventConsumer& consumer);

// The whole trace in memory (tests).
Trace generate_trace(const GeneratorOptions& options);

// Small deterministic PRNG (xoshiro256**, seeded by splitmix64). Results are the same on every
// platform, unlike std distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  // Uniform in [0, bound); bound > 0.
  uint64_t below(uint64_t bound);
  // True with probability p (p <= 0 never, p >= 1 always).
  bool chance(double p);

 private:
  uint64_t s_[4];
};

}  // namespace racepred
