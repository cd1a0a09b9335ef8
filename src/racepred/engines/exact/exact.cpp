// exact and exact-enabled: the ground truth of Sulzmann and Thiemann, "Cross-thread critical
// sections and efficient dynamic race prediction methods" (§3, Def. 3.4, 3.8), and the weaker
// "both enabled" notion, by the exact module's search over the run's index.
#include <memory>

#include "racepred/engines/exact/exact_family.hpp"

namespace racepred {
namespace {

class ExactEngine final : public OfflineEngine {
 public:
  ExactEngine(EngineContext& context, exact::RaceNotion notion)
      : sink_(context.sink), options_(exact::budget_of(context)) {
    options_.notion = notion;
  }
  void run(const TraceIndex& index) override {
    const exact::SearchResult result = exact::search_within_budget(index, options_);
    for (const auto& [first, second] : result.races)
      exact::report_pair(sink_, index, first, second);
  }

 private:
  RaceSink& sink_;
  exact::SearchOptions options_;
};

}  // namespace

std::unique_ptr<Engine> make_exact(EngineContext& c) {
  return std::make_unique<ExactEngine>(c, exact::RaceNotion::Adjacent);
}
std::unique_ptr<Engine> make_exact_enabled(EngineContext& c) {
  return std::make_unique<ExactEngine>(c, exact::RaceNotion::Enabled);
}

}  // namespace racepred
