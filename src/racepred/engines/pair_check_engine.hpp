// An offline engine that checks candidate pairs one by one and backs every race it reports with
// the same check's linearisation (osr, m2). Analysis(index) has run(report) calling
// report(first, second) per race and check(first, second, &order) filling the witness prefix
// (index positions); both keep clocks with one entry per thread for every thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "racepred/engines/engine.hpp"
#include "racepred/engines/index_race.hpp"
#include "racepred/engines/witness_source.hpp"

namespace racepred {

template <class Analysis>
class PairCheckEngine final : public OfflineEngine, public WitnessSource {
 public:
  // `work`: a per-pair bound handed to an Analysis constructible from (index, work) (m2).
  PairCheckEngine(EngineContext& context, const char* name, uint32_t max_threads, uint64_t work = 0)
      : sink_(context.sink), name_(name), max_threads_(max_threads), work_(work) {}
  // Every race is witnessed by its checked linearisation (both accesses enabled).
  WitnessSource* witness_source() override { return this; }
  WitnessNotion witness_notion() const override { return WitnessNotion::Enabled; }
  WitnessScope witness_scope() const override { return WitnessScope::Every; }
  std::vector<std::optional<RaceWitness>> witnesses(const TraceIndex& index,
                                                    std::span<const Race> races) override {
    Analysis analysis = make(index);
    return witnesses_by_pair(index, races, [&](uint32_t first, uint32_t second, auto& prefix) {
      return analysis.check(first, second, &prefix);
    });
  }
  void run(const TraceIndex& index) override {
    if (index.thread_count() > max_threads_)
      throw BudgetError(std::string(name_) +
                        " keeps a clock of one entry per thread for every thread; " +
                        std::to_string(index.thread_count()) + " threads are more than its " +
                        std::to_string(max_threads_));
    Analysis analysis = make(index);
    analysis.run(
        [&](uint32_t first, uint32_t second) { sink_.report(race_at(index, first, second)); });
    if constexpr (requires { analysis.stopped_stat(); }) {
      if (std::optional<ExtraStat> stat = analysis.stopped_stat())
        sink_.extras().stats.push_back(std::move(*stat));
    }
  }

 private:
  Analysis make(const TraceIndex& index) const {
    if constexpr (std::is_constructible_v<Analysis, const TraceIndex&, uint64_t>)
      return Analysis(index, work_);
    else
      return Analysis(index);
  }

  RaceSink& sink_;
  const char* name_;
  uint32_t max_threads_;
  uint64_t work_;
};

}  // namespace racepred
