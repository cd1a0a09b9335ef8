// adjacent: the races the observed schedule itself shows — two conflicting accesses of
// different threads that are next to each other in the trace. The trace is a correct
// reordering of itself, so each such pair is a predictable race (Def. 3.8 of the cross-thread
// paper): the engine is sound, and misses every race the schedule did not happen to show.
//
// This is the template engine of the recipe in engines/engine.hpp: copy it to start a new one.
//
// State:
//   last   the previous event of the trace, if it was an access (else none)
//
//   r(i,x), w(i,x):  race (last, e) if last conflicts with e;  last := e
//   acq, rel, fork, join:  last := none
#include <memory>

#include "racepred/engines/dispatch.hpp"
#include "racepred/engines/witness_source.hpp"
#include "racepred/report/notation.hpp"

namespace racepred {
namespace {

class Adjacent final : public DispatchEngine<Adjacent>, public Annotator, public WitnessSource {
 public:
  explicit Adjacent(EngineContext& context) : sink_(context.sink) {}

  // The trace witnesses its own races: its prefix up to the second access (adjacent).
  WitnessSource* witness_source() override { return this; }
  WitnessNotion witness_notion() const override { return WitnessNotion::Adjacent; }
  WitnessScope witness_scope() const override { return WitnessScope::Every; }
  std::vector<std::optional<RaceWitness>> witnesses(const TraceIndex& index,
                                                    std::span<const Race> races) override {
    std::vector<std::optional<RaceWitness>> out;
    for (const Race& race : races) {
      const uint32_t second = ClosureWitnesses::position(index, race.second.event);
      RaceWitness w;
      for (uint32_t i = 0; second != kNoIndex && i <= second; ++i) w.prefix.push_back(i);
      out.push_back(std::move(w));
    }
    return out;
  }

  // The handlers the method needs; acquire, release, fork and join are left to after().
  void read(EventId id, const Event& e) { access(id, e); }
  void write(EventId id, const Event& e) { access(id, e); }
  // Read locks, like every other non-access, only reset `last` (in after()).
  void read_acquire(EventId, const Event&) {}
  void read_release(EventId, const Event&) {}
  // Send and recv access no variable: they only reset `last`, so they separate two accesses.
  void send(EventId, const Event&) {}
  // A lock request (req) takes and orders nothing: its acquire, if granted, does.
  void request(EventId, const Event&) {}
  void recv(EventId, const Event&) {}
  void after(EventId id, const Event& e) {
    has_last_ = e.is_access();
    last_id_ = id;
    last_ = e;
  }

  // The annotated view: the race found at the event, as (eFIRST,eSECOND).
  Annotator* annotator() override { return this; }
  void before_event(EventId, const Event&) override { found_ = kNoEvent; }
  void annotate(EventId id, const Event&, Annotation& row) override {
    row.push_back({"races", found_ == kNoEvent ? std::string() : races_text({found_}, id)});
  }

 private:
  void access(EventId id, const Event& e) {
    if (has_last_ && conflicting(last_, e)) {
      sink_.report(Race{Access::of(last_id_, last_), Access::of(id, e), e.target});
      found_ = last_id_;
    }
  }

  RaceSink& sink_;
  bool has_last_ = false;  // last: the previous event, when it was an access
  EventId last_id_ = kNoEvent;
  Event last_;
  EventId found_ = kNoEvent;  // annotation only
};

}  // namespace

std::unique_ptr<Engine> make_adjacent(EngineContext& context) {
  return std::make_unique<Adjacent>(context);
}

}  // namespace racepred
