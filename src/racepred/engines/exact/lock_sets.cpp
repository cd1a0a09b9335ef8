// ls-standard, ls-cross and ls-cross-indexed: the lock-set race predictors over critical sections
// of Sulzmann and Thiemann, "Cross-thread critical sections and efficient dynamic race prediction
// methods": P_DR over standard lock sets LH_S (§4.1, Def. 4.1, 4.2), over cross-thread lock sets
// LH_C (§4.2, Def. 4.3, 4.4), and P'_DR over thread-indexed ones LH_CT (§5.1, Def. 5.9). The
// cross-thread sets need must-happen-before, from the exact module's search.
#include <algorithm>
#include <memory>

#include "racepred/clock/lock_set.hpp"
#include "racepred/engines/exact/exact_family.hpp"
#include "racepred/engines/lockset/read_locks.hpp"
#include "racepred/exact/locksets.hpp"

namespace racepred {
namespace {

enum class LockSetKind { Standard, Cross, CrossIndexed };

// Annotation: the columns of Fig. 2 of the cross-thread paper, the lock set after the operation
// (LH(e), plus the lock an acquire takes).
class ExactLockSetEngine final : public OfflineEngine, public OfflineAnnotator {
 public:
  ExactLockSetEngine(EngineContext& context, LockSetKind kind)
      : OfflineAnnotator(context),
        sink_(context.sink),
        budget_(exact::budget_of(context)),
        kind_(kind) {}

  Annotator* annotator() override { return this; }

  void run(const TraceIndex& trace) override {
    exact::LockSetIds cross;
    if (kind_ != LockSetKind::Standard) {
      const exact::SearchResult result = exact::search_within_budget(trace, budget_);
      cross = exact::intern_lock_sets(exact::cross_lock_sets(trace, result.mhb));
    }
    switch (kind_) {
      case LockSetKind::Standard: {
        LockSetTable table;
        exact::predict_races(trace, standard_keys(trace, table), sink_);
        break;
      }
      case LockSetKind::Cross:
        exact::predict_races(trace, cross, exact::Intersection::Plain, sink_);
        break;
      case LockSetKind::CrossIndexed:
        exact::predict_races(trace, cross, exact::Intersection::Indexed, sink_);
        break;
    }
    if (!annotating()) return;
    const exact::LockSetIds standard = exact::standard_lock_set_ids(trace);
    std::vector<Annotation>& rows = cells(trace.size());
    auto set_of = [](const exact::LockSetIds& ids, uint32_t i) -> const exact::LockSet& {
      return ids.sets[ids.of_event[i]];
    };
    for (uint32_t i = 0; i < trace.size(); ++i) {
      Annotation& row = rows[i];
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
  // LH_S(e) (Def. 4.2) as sets of the lock-set table: program order alone decides it (a release
  // is not in its own section, an acquire not yet in the one it opens). The table keeps memory
  // linear in the nesting depth, where exact::standard_lock_set_ids stores every set in full.
  // A lock held in read mode is its read-hold token (engines/lockset/read_locks.hpp), which
  // meets only write holds of the lock: P_DR of the read-lock reduction.
  static exact::LockSetKeys standard_keys(const TraceIndex& trace, LockSetTable& table) {
    exact::LockSetKeys keys;
    keys.of_event.assign(trace.size(), LockSetTable::kEmptySet);
    bool read_locks = false;
    for (uint32_t t = 0; t < trace.thread_count(); ++t) {
      LockSetTable::NodeId node = LockSetTable::kRoot;
      for (uint32_t i : trace.thread_events(t)) {
        const Event& e = trace.event(i);
        const bool read = is_read_lock_op(e.op);
        read_locks |= read;
        const LockId token = read ? read_mode(e.target) : e.target;
        if (is_release_op(e.op)) node = table.release(node, token);
        keys.of_event[i] = table.set_of(node);
        if (is_acquire_op(e.op)) node = table.acquire(node, token);
      }
    }
    keys.count = static_cast<uint32_t>(table.set_count());
    if (read_locks)
      keys.disjoint = [&table](uint32_t a, uint32_t b) { return disjoint_rw(table, a, b); };
    else
      keys.disjoint = [&table](uint32_t a, uint32_t b) { return table.disjoint(a, b); };
    return keys;
  }

  static exact::LockSet after(const TraceIndex& trace, uint32_t i, exact::LockSet set) {
    const Event& e = trace.event(i);
    if (is_acquire_op(e.op)) {
      set.push_back({e.target, e.thread, e.op == Op::ReadAcquire});
      std::sort(set.begin(), set.end());
    }
    return set;
  }

  RaceSink& sink_;
  exact::SearchOptions budget_;
  LockSetKind kind_;
};

}  // namespace

std::unique_ptr<Engine> make_ls_standard(EngineContext& c) {
  return std::make_unique<ExactLockSetEngine>(c, LockSetKind::Standard);
}
std::unique_ptr<Engine> make_ls_cross(EngineContext& c) {
  return std::make_unique<ExactLockSetEngine>(c, LockSetKind::Cross);
}
std::unique_ptr<Engine> make_ls_cross_indexed(EngineContext& c) {
  return std::make_unique<ExactLockSetEngine>(c, LockSetKind::CrossIndexed);
}

}  // namespace racepred
