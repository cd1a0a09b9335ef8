// exact-deadlocks and exact-ct-deadlocks: the deadlock ground truth of Sulzmann and Thiemann,
// "Cross-thread critical sections and efficient dynamic race prediction methods" (App. B), by
// the exact module's search over the run's index.
#include <memory>

#include "racepred/engines/exact/exact_family.hpp"
#include "racepred/exact/deadlocks.hpp"

namespace racepred {
namespace {

// exact-deadlocks and exact-ct-deadlocks: the predictable deadlocks of Def. B.4 and the
// cross-thread predictable deadlocks of Def. B.7 (App. B), each with its prefix as witness.
class ExactDeadlocks final : public OfflineEngine {
 public:
  ExactDeadlocks(EngineContext& context, bool cross_thread)
      : sink_(context.sink), options_(exact::budget_of(context)), cross_thread_(cross_thread) {
    options_.deadlocks = true;
  }
  void run(const TraceIndex& index) override {
    const exact::SearchResult result = exact::search_within_budget(index, options_);
    for (const exact::DeadlockWitness& d :
         cross_thread_ ? result.cross_thread_deadlocks : result.deadlocks)
      sink_.add_finding(exact::deadlock_finding(index, d));
  }

 private:
  RaceSink& sink_;
  exact::SearchOptions options_;
  bool cross_thread_;
};

}  // namespace

std::unique_ptr<Engine> make_exact_deadlocks(EngineContext& c) {
  return std::make_unique<ExactDeadlocks>(c, false);
}
std::unique_ptr<Engine> make_exact_ct_deadlocks(EngineContext& c) {
  return std::make_unique<ExactDeadlocks>(c, true);
}

}  // namespace racepred
