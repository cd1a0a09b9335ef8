// The witness hook of an engine (`racepred analyze --witness`, docs/WITNESSES.md).
//
// An engine whose guarantee says its reports are real backs them with witnesses: a correctly
// reordered prefix T' of the trace (Def. 3.4 of Sulzmann and Thiemann, "Cross-thread critical
// sections and efficient dynamic race prediction methods") after which the two accesses meet.
// The witness comes from the engine's own relation (the downward closure of the two accesses
// under its order, its ideal), never from a search. The driver checks every witness with the
// independent checker (witness/checker.hpp) before it is written: an engine is never trusted.
//
// To give witnesses (the whole recipe):
//  1. Derive the engine also from WitnessSource and return `this` from
//     Engine::witness_source() (a plain getter).
//  2. When EngineContext::witnesses is set, keep during the run what witnesses() will need
//     (nothing when it is not: no cost unless asked).
//  3. Implement witnesses(): called once, after finish(), with the run's TraceIndex and the
//     races the report lists that the engine's guarantee covers.
//  4. The property test tests/properties/witness_property_test.cpp checks every witness of every
//     engine that gives them with the checker on random traces: add the engine there.
// The closure of an order given by its direct edges (engines whose relation is happens-before
// or schedulable happens-before) is ready-made: ClosureWitnesses below.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "racepred/report/finding.hpp"
#include "racepred/trace/trace_index.hpp"

namespace racepred {

// When the two accesses meet (docs/WITNESSES.md): at the end of T', back to back, or both next.
enum class WitnessNotion : uint8_t {
  Adjacent,  // T' ends with the two accesses (Def. 3.8 of the cross-thread paper)
  Enabled,   // neither access is in T'; each is the next event of its thread (SHB, SyncP, M2)
};

// Which of its reports an engine backs.
enum class WitnessScope : uint8_t {
  Every,  // every reported race (a Soundness::Sound engine)
  // The races of the earliest racy event (the smallest `second` among the engine's races), as
  // Soundness::FirstRace promises: later races may be false and get no witness.
  FirstRace,
};

// One witness, as index positions (0-based, trace order of the index; TraceIndex::id() gives
// the event ids): T' is the cut's events in trace order, then `prefix`. For Adjacent T' ends
// with the two accesses, in the order they run.
struct RaceWitness {
  // Per thread (sorted by thread, no zero counts): how many of its first events T' runs. A
  // downward-closed set linearised in trace order needs no list of its events, so a witness of
  // a long prefix costs the number of threads, not the number of events.
  std::vector<std::pair<ThreadId, uint32_t>> cut;
  std::vector<uint32_t> prefix;
};

class WitnessSource {
 public:
  virtual ~WitnessSource() = default;
  virtual WitnessNotion witness_notion() const = 0;
  virtual WitnessScope witness_scope() const = 0;
  // One entry per race of `races` (the races the report lists, sorted by (first, second); for
  // FirstRace only those of the earliest racy event): its witness, or std::nullopt when the
  // engine cannot back that race (it keeps the label its guarantee gives). `index` is the run's,
  // shared with other engines: read it, never change it. Called once, after finish().
  virtual std::vector<std::optional<RaceWitness>> witnesses(const TraceIndex& index,
                                                            std::span<const Race> races) = 0;
};

// The downward closure of two accesses under an order given by its direct edges, linearised in
// trace order: the witness (Enabled) of the SHB race theorem (Mathur, Kini and Viswanathan,
// "What happens-after the first race?", §4: the SHB predecessors of two SHB-unordered
// conflicting events form a correct reordering after which both are enabled) and of the first
// happens-before race. The edges: thread order, fork -> the child's first event, the child's
// last event -> join, releases -> later acquires of the lock (a write acquire after every
// earlier section, a read acquire after the earlier write sections), send(o) -> later recv(o),
// and with Order::Schedulable the last write -> each read. Why the prefix is well formed:
// an acquire in the closure brings every earlier release of its lock that it is ordered after,
// so of a lock's sections in the closure only the last (in trace order) can be open, and
// trace order runs it after the others closed; a read in the closure either brings its last
// write (SHB), or (HB, first race) its last write is ordered before it — otherwise the pair
// would be a happens-before race with an earlier second event. Set-up is linear in the trace;
// the closure is downward closed, so a witness is its cut (each thread's count) in trace order.
// The closures of the races' accesses are built incrementally per thread: the closure of an
// event contains that of every earlier event of its thread, so the accesses of one thread are
// visited in thread order and each event of the trace is scanned at most once per thread.
class ClosureWitnesses {
 public:
  enum class Order : uint8_t { HappensBefore, Schedulable };
  ClosureWitnesses(const TraceIndex& index, Order order);
  // The cuts of the events ordered before `first` or `second` (positions), for each pair: the
  // closure of their predecessors as the engines' clocks before the two events have them (a
  // read's own last write is not among them: it is joined after the race check). Neither
  // access is in it when they are unordered.
  std::vector<std::vector<std::pair<ThreadId, uint32_t>>> cuts(
      std::span<const std::pair<uint32_t, uint32_t>> pairs);
  // The index position of an event id, or kNoIndex.
  static uint32_t position(const TraceIndex& index, EventId id);
  // Events whose predecessors were scanned so far (the work measure of the tests).
  uint64_t steps() const { return steps_; }

 private:
  void include(ThreadId t, uint32_t count);
  // Extends the current closure by the predecessors of `access` (its thread's earlier events).
  void extend(uint32_t access);
  void clear();

  const TraceIndex& index_;
  // The direct cross-thread predecessors of each event: preds_[start_[i], start_[i + 1]).
  std::vector<uint32_t> start_;
  std::vector<uint32_t> preds_;
  // State of one closure, kept to reuse the memory.
  std::vector<uint32_t> bound_;    // per thread: events of it in the closure (a prefix)
  std::vector<uint32_t> work_;     // threads whose bound grew
  std::vector<uint32_t> scanned_;  // per thread: events whose predecessors were added
  std::vector<uint32_t> touched_;  // threads with a non-zero bound
  uint64_t steps_ = 0;
};

// The witnesses of races under an order (shb: Schedulable; the happens-before engines' first
// race: HappensBefore): the closure of each race's two accesses.
std::vector<std::optional<RaceWitness>> closure_witnesses(const TraceIndex& index,
                                                          std::span<const Race> races,
                                                          ClosureWitnesses::Order order);

// The witnesses of races from `one(first, second, prefix)`, which fills the prefix (index
// positions) and returns whether it backs the race (first, second: index positions). A race
// whose accesses are not both in the index gets none.
template <class One>
std::vector<std::optional<RaceWitness>> witnesses_by_pair(const TraceIndex& index,
                                                          std::span<const Race> races, One&& one) {
  std::vector<std::optional<RaceWitness>> out;
  out.reserve(races.size());
  for (const Race& race : races) {
    const uint32_t first = ClosureWitnesses::position(index, race.first.event);
    const uint32_t second = ClosureWitnesses::position(index, race.second.event);
    RaceWitness w;
    if (race.first.known() && first != kNoIndex && second != kNoIndex &&
        one(first, second, w.prefix))
      out.push_back(std::move(w));
    else
      out.emplace_back();
  }
  return out;
}

// The witness hook of an engine whose relation is happens-before (program order with fork/join,
// release -> acquire, send -> recv) and whose guarantee is about its first race
// (Soundness::FirstRace): the races of the earliest racy event, each witnessed by the closure of
// its two accesses (both enabled). Later races get none: they may be false.
class HappensBeforeFirstRaceWitnesses : public WitnessSource {
 public:
  WitnessNotion witness_notion() const override { return WitnessNotion::Enabled; }
  WitnessScope witness_scope() const override { return WitnessScope::FirstRace; }
  std::vector<std::optional<RaceWitness>> witnesses(const TraceIndex& index,
                                                    std::span<const Race> races) override {
    return closure_witnesses(index, races, ClosureWitnesses::Order::HappensBefore);
  }
};

}  // namespace racepred
