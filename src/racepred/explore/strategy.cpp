// What every strategy shares: fairness, the options of a choice point, replay.
#include "racepred/explore/strategy.hpp"

#include "racepred/format/explore_channel.hpp"

namespace racepred::explore {

namespace ch = format::explore;

bool Fairness::gives_way(const ChoicePoint& point) {
  const uint32_t tid = point.current;
  const Candidate* current = nullptr;
  for (const Candidate& c : point.candidates)
    if (c.tid == tid) current = &c;
  // A memory access point neither spins nor breaks a spin (the loop's accesses between its
  // atomic operations).
  if (!current || current->op == ch::kOpAccess) return false;
  if (current->op == ch::kOpYield || current->op == ch::kOpSleep) return true;
  if (tid >= last_.size()) last_.resize(tid + 1);
  Last& last = last_[tid];
  if (current->op == ch::kOpAtomic && last.op == ch::kOpAtomic && last.obj == current->obj) {
    ++last.repeats;
  } else {
    last.repeats = 0;
  }
  last.op = current->op;
  last.obj = current->obj;
  if (last.repeats + 1 >= kSpinRepeats) {
    last.repeats = 0;  // it spins again kSpinRepeats times before it gives way again
    return true;
  }
  return false;
}

bool Fairness::quiet() const {
  for (const Last& l : last_)
    if (l.op == ch::kOpAtomic) return false;
  return true;
}

bool is_spurious(const Candidate& c) {
  return c.times_out && c.op == ch::kOpCondWait;
}

Options options_of(const ChoicePoint& point, bool gives_way) {
  Options o;
  const size_t n = point.candidates.size();
  size_t current = SIZE_MAX;
  for (size_t i = 0; i < n; ++i)
    if (point.candidates[i].tid == point.current) current = i;
  o.current_runs = current != SIZE_MAX && !gives_way && !point.timeouts &&
                   !is_spurious(point.candidates[current]);
  for (size_t i = 0; i < n; ++i)
    if (i != current || !gives_way || n == 1) o.allowed.push_back(i);
  if (o.current_runs) {
    o.default_index = current;
  } else {
    // The next thread after the current one by number (round-robin), among the allowed; a
    // spurious wake-up only when nothing else is allowed.
    o.default_index = SIZE_MAX;
    for (size_t i : o.allowed) {
      if (is_spurious(point.candidates[i])) continue;
      if (o.default_index == SIZE_MAX) o.default_index = i;
      if (point.candidates[i].tid > point.current) {
        o.default_index = i;
        break;
      }
    }
    if (o.default_index == SIZE_MAX) o.default_index = o.allowed.front();
  }
  return o;
}

size_t ReplayStrategy::choose(const ChoicePoint& point, size_t index) {
  const bool gives_way = fairness_.gives_way(point);
  if (index < choices_.size()) {
    for (size_t i = 0; i < point.candidates.size(); ++i)
      if (point.candidates[i].tid == choices_[index]) return i;
    if (divergence_ == SIZE_MAX) divergence_ = index;
  }
  return options_of(point, gives_way).default_index;
}

bool ReplayStrategy::plan(ExecutionPlan& plan) const {
  plan.kind = ch::kPlanPrefix;
  plan.prefix.clear();
  plan.prefix.reserve(choices_.size());
  for (uint32_t tid : choices_) plan.prefix.push_back({tid, ch::kPlanAnyIndex});
  return true;
}

std::string ReplayStrategy::coverage(uint64_t, bool) const {
  if (divergence_ != SIZE_MAX)
    return "replay diverged at choice point " + std::to_string(divergence_ + 1) + " of " +
           std::to_string(choices_.size()) +
           ": the program did something the scheduler does not control (time, randomness, "
           "input) or is not the program the schedule was saved for";
  return "replayed " + std::to_string(choices_.size()) + " choices";
}

}  // namespace racepred::explore
