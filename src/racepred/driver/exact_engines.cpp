// Offline engines of seed 003: the exact ground truth (Def. 3.8, and the weaker "both enabled"
// notion) and the lock-set predictors built on exact critical sections (Def. 4.1–5.9).
#include <algorithm>
#include <memory>

#include "racepred/engines/engine.hpp"
#include "racepred/exact/exact_trace.hpp"
#include "racepred/exact/locksets.hpp"
#include "racepred/exact/search.hpp"

namespace racepred {
namespace {

// Keeps the events; the work happens in finish().
class OfflineEngine : public Engine {
 public:
  explicit OfflineEngine(EngineContext& context) : symbols_(context.symbols), sink_(context.sink) {}
  void on_event(EventId id, const Event& event) override {
    events_.push_back(event);
    ids_.push_back(id);
  }

 protected:
  // Called once, in finish(): the trace takes over the events.
  exact::ExactTrace make_trace() {
    return exact::ExactTrace(std::move(events_), std::move(ids_), &symbols_);
  }
  void report(const exact::ExactTrace& trace, uint32_t first, uint32_t second) {
    sink_.report(Race{Access::of(trace.id(first), trace.event(first)),
                      Access::of(trace.id(second), trace.event(second)),
                      trace.event(first).target});
  }

  const Symbols& symbols_;
  RaceSink& sink_;
  std::vector<Event> events_;
  std::vector<EventId> ids_;
};

class ExactEngine : public OfflineEngine {
 public:
  ExactEngine(EngineContext& context, exact::RaceNotion notion)
      : OfflineEngine(context), notion_(notion) {}
  void finish() override {
    const exact::ExactTrace trace = make_trace();
    exact::SearchOptions options;
    options.notion = notion_;
    const exact::SearchResult result = exact::search(trace, options);
    for (const auto& [first, second] : result.races) report(trace, first, second);
  }

 private:
  exact::RaceNotion notion_;
};

enum class LockSetKind { Standard, Cross, CrossIndexed };

// P_DR over LH_S, LH_C or (with ∩') LH_CT. Annotation: the columns of Fig. 2 of seed 003, the
// lock set after the operation (LH(e), plus the lock an acquire takes).
class LockSetEngine : public OfflineEngine {
 public:
  LockSetEngine(EngineContext& context, LockSetKind kind) : OfflineEngine(context), kind_(kind) {}

  bool supports_annotation() const override { return true; }
  // Offline: the row is filled in finish(), once the whole trace is known. The annotate driver
  // keeps the rows alive until after finish() (engine.hpp).
  void annotate(EventId, const Event&, Annotation& row) override { rows_.push_back(&row); }

  void finish() override {
    const exact::ExactTrace trace = make_trace();
    const exact::LockSetIds standard = exact::standard_lock_set_ids(trace);
    exact::LockSetIds cross;
    if (kind_ != LockSetKind::Standard) {
      exact::SearchOptions options;
      const exact::SearchResult result = exact::search(trace, options);
      cross = exact::intern_lock_sets(exact::cross_lock_sets(trace, result.mhb));
    }
    switch (kind_) {
      case LockSetKind::Standard:
        exact::predict_races(trace, standard, exact::Intersection::Plain, sink_);
        break;
      case LockSetKind::Cross:
        exact::predict_races(trace, cross, exact::Intersection::Plain, sink_);
        break;
      case LockSetKind::CrossIndexed:
        exact::predict_races(trace, cross, exact::Intersection::Indexed, sink_);
        break;
    }
    if (rows_.size() != trace.size()) return;
    auto set_of = [](const exact::LockSetIds& ids, uint32_t i) -> const exact::LockSet& {
      return ids.sets[ids.of_event[i]];
    };
    for (uint32_t i = 0; i < trace.size(); ++i) {
      Annotation& row = *rows_[i];
      row.push_back(
          {"L", exact::format_lock_set(trace, after(trace, i, set_of(standard, i)), false)});
      if (kind_ != LockSetKind::Standard)
        row.push_back(
            {"C", exact::format_lock_set(trace, after(trace, i, set_of(cross, i)), false)});
      if (kind_ == LockSetKind::CrossIndexed)
        row.push_back(
            {"CT", exact::format_lock_set(trace, after(trace, i, set_of(cross, i)), true)});
    }
  }

 private:
  static exact::LockSet after(const exact::ExactTrace& trace, uint32_t i, exact::LockSet set) {
    const Event& e = trace.event(i);
    if (e.op == Op::Acquire) {
      set.push_back({e.target, e.thread});
      std::sort(set.begin(), set.end());
    }
    return set;
  }

  LockSetKind kind_;
  std::vector<Annotation*> rows_;
};

}  // namespace

void register_exact_engines(std::vector<EngineInfo>& out) {
  const std::string exponential = "exponential in the number of threads; small traces only";
  out.push_back(EngineInfo{
      "exact",
      "Ground truth: predictable races, adjacent in a correctly reordered prefix (Def. 3.8)",
      "sound and complete for Def. 3.8 (the ground truth); race pairs; " + exponential,
      "003 §3, Def. 3.4, 3.8", EngineMode::Offline, [](EngineContext& c) {
        return std::make_unique<ExactEngine>(c, exact::RaceNotion::Adjacent);
      }});
  out.push_back(EngineInfo{
      "exact-enabled",
      "Both conflicting events enabled after a correctly reordered prefix (SHB/SyncP/M2 notion)",
      "sound and complete for the 'both enabled' notion (a superset of Def. 3.8); race pairs; " +
          exponential,
      "003 §3, Def. 3.4; ALGORITHMS.md §1.1", EngineMode::Offline, [](EngineContext& c) {
        return std::make_unique<ExactEngine>(c, exact::RaceNotion::Enabled);
      }});
  out.push_back(EngineInfo{
      "ls-standard", "P_DR over standard lock sets LH_S from exact critical sections",
      "complete (no false negatives, Lemma 5.7), unsound; race pairs", "003 §4.1, Def. 4.1, 4.2",
      EngineMode::Offline,
      [](EngineContext& c) { return std::make_unique<LockSetEngine>(c, LockSetKind::Standard); }});
  out.push_back(EngineInfo{
      "ls-cross", "P_DR over cross-thread lock sets LH_C (must-happen-before critical sections)",
      "neither: fewer false positives than ls-standard (Cor. 5.5) but false negatives (Lemma "
      "5.8); race pairs; " +
          exponential,
      "003 §4.2, Def. 4.3, 4.4", EngineMode::Offline,
      [](EngineContext& c) { return std::make_unique<LockSetEngine>(c, LockSetKind::Cross); }});
  out.push_back(EngineInfo{
      "ls-cross-indexed",
      "P'_DR over thread-indexed cross-thread lock sets LH_CT, locks of different threads only",
      "complete (no false negatives, Cor. 5.13), unsound; between ls-cross and ls-standard; race "
      "pairs; " +
          exponential,
      "003 §5.1, Def. 5.9", EngineMode::Offline, [](EngineContext& c) {
        return std::make_unique<LockSetEngine>(c, LockSetKind::CrossIndexed);
      }});
}

}  // namespace racepred
