// Exhaustive search over the correctly reordered prefixes of a trace (Sulzmann and Thiemann
// Def. 3.4): predictable races (Def. 3.8, or the weaker "both enabled" notion) and the
// must-happen-before relation (Def. 3.5). Exponential; meant for small traces (tens of events).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "racepred/trace/error.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred::exact {

// Which pairs count as predictable races.
enum class RaceNotion {
  // Def. 3.8: e and f are right next to each other in some correctly reordered prefix; both
  // are part of it, so a racing read keeps its last write.
  Adjacent,
  // Both are enabled after some correctly reordered prefix: each is the next event of its
  // thread and its thread has started (the notion of the SHB, SyncP and M2 papers). A racing
  // read need not see its original write. Every Adjacent race is an Enabled race.
  Enabled,
};

// Which reorderings witness races and refute must-happen-before.
enum class Reorderings {
  // Correctly reordered prefixes (Def. 3.4 as written): events may be left out at the end of
  // each thread. The default, and what `exact` means.
  Prefixes,
  // Only prefixes that extend to a correct reordering of the whole trace (every event kept).
  // The paper's prose reasons this way in places (Fig. 6, 9, 13): a race witness must not cut
  // off a read whose last write it would change. Fewer races, more must-happen-before.
  Complete,
};

struct SearchOptions {
  RaceNotion notion = RaceNotion::Adjacent;
  Reorderings reorderings = Reorderings::Prefixes;
  // The search stops with SearchLimitError after this many distinct states ...
  uint64_t max_states = UINT64_MAX;
  // ... or when the stored states would need more than this many bytes. No budget by default:
  // the engines and `racepred exact` pass the one of engines/options.def (--max-states,
  // --max-memory).
  uint64_t max_memory = UINT64_MAX;
  bool witnesses = false;  // keep one witness prefix per race
  // Also collect the predictable deadlocks (Def. B.4) and the cross-thread predictable
  // deadlocks (Def. B.7) of Sulzmann and Thiemann's App. B, each with its prefix.
  bool deadlocks = false;
};

// The state or memory budget was exhausted. An InputError, so the CLI exits with code 2.
class SearchLimitError : public InputError {
 public:
  using InputError::InputError;
};

// One correctly reordered prefix exhibiting a race. `prefix` lists event indices in order.
// Adjacent: the prefix ends with the two racing events (in the order they run). Enabled: the
// two racing events are not in the prefix; both are enabled after it.
struct RaceWitness {
  std::vector<uint32_t> prefix;
  // Reorderings::Complete: events that complete the prefix to a reordering of the whole trace.
  std::vector<uint32_t> completion;
  uint32_t first = kNoIndex;  // the two racing events, in the order the witness shows them
  uint32_t second = kNoIndex;
};

// A deadlock after the correctly reordered prefix `prefix` (event indices in order): each of
// `acquires` (one per thread, sorted by index) is the next event of its thread and cannot run.
// Def. B.4 (`cross_thread` false): `acquires` are in cycle order, the lock that acquires[i]
// requests is held, in the thread's own critical section, by the thread of acquires[i + 1]
// (the last's by the first's), and the requested locks are distinct. Def. B.7 (`cross_thread`
// true): acquires[i] cannot run after the prefix (CS-PD-2), whoever holds its lock, and every
// other thread with events in the prefix has finished or waits at a join or recv (CS-PD-3);
// `acquires` lists every blocked acquire of a started thread.
struct DeadlockWitness {
  std::vector<uint32_t> prefix;
  std::vector<uint32_t> acquires;
  bool cross_thread = false;
};

// Must-happen-before (Def. 3.5), read off the search.
//
// before(e, f): every correctly reordered prefix that contains f contains e, earlier. This is
// the reading under which Lemma 3.6 (a strict partial order) and the proofs of Lemma 5.7 and
// Cor. 5.13 (which use that the acquire guarding e is in the witness prefix) hold. Over
// complete reorderings it coincides with the literal reading.
//
// before_in_common(e, f): the literal wording over prefixes: every prefix that contains both
// has e first. It is implied by before(), but it is not transitive over prefixes (e <mhb f
// and f <mhb g, while a prefix holds g but not f and runs g before e), so it is not the
// relation of Lemma 3.6. See docs/GROUND_TRUTH.md.
class MustHappenBefore {
 public:
  MustHappenBefore() = default;
  MustHappenBefore(const TraceIndex* trace, std::vector<uint32_t> required,
                   std::vector<uint32_t> can_precede)
      : trace_(trace), required_(std::move(required)), can_precede_(std::move(can_precede)) {}
  // e <mhb f.
  bool before(uint32_t e, uint32_t f) const;
  bool ordered(uint32_t e, uint32_t f) const { return before(e, f) || before(f, e); }
  bool before_in_common(uint32_t e, uint32_t f) const;
  bool empty() const { return trace_ == nullptr; }

 private:
  const TraceIndex* trace_ = nullptr;
  // Per event f and thread u (index f * threads + u), over all explored transitions that run f:
  // required_: the least position of u (events of u below it are in every prefix before f);
  // can_precede_: the greatest position of u (events of u below it can run before f).
  std::vector<uint32_t> required_;
  std::vector<uint32_t> can_precede_;
};

struct SearchResult {
  RaceNotion notion = RaceNotion::Adjacent;
  Reorderings reorderings = Reorderings::Prefixes;
  // Predictable races as index pairs (i < j in trace order), sorted.
  std::vector<std::pair<uint32_t, uint32_t>> races;
  std::vector<RaceWitness> witnesses;  // parallel to races when requested
  MustHappenBefore mhb;
  uint64_t states = 0;       // distinct states (correctly reordered prefixes up to equivalence)
  uint64_t transitions = 0;  // explored steps
  // Stuck states: some thread has events left, no event can run, and no thread waits for a
  // read's last write (so the threads wait for locks, joins or forks: a reordering that gets
  // stuck as in Fig. 5 of Sulzmann and Thiemann). Dead ends of the last-write rule are not counted.
  // `stuck_witness` is one such prefix (empty if none).
  uint64_t stuck_states = 0;
  std::vector<uint32_t> stuck_witness;
  // SearchOptions::deadlocks: one entry per distinct set of acquires (the first prefix found),
  // sorted by their sorted acquires. Def. B.4 cycles in `deadlocks`, Def. B.7 sets in
  // `cross_thread_deadlocks`.
  std::vector<DeadlockWitness> deadlocks;
  std::vector<DeadlockWitness> cross_thread_deadlocks;
};

// Explores every correctly reordered prefix of `trace` (kept alive by the caller: the result
// refers to it). Semantics (docs/GROUND_TRUTH.md): a thread runs after its fork (or from the
// start when it has none); an acquire runs only when no other thread holds the lock (a read
// acquire: in write mode; readers share a lock, docs/GROUND_TRUTH.md); a read only
// when the current last write of its variable is its last write in the trace (no write: the
// read must still see the initial value); join(u) only after every event of u; recv(o) only
// after every send(o) that precedes it in the trace.
// Throws SearchLimitError when more than options.max_states states are needed.
SearchResult search(const TraceIndex& trace, const SearchOptions& options = {});

}  // namespace racepred::exact
