// PLACEHOLDER owned by the io work: forwards everything unchecked; replaced before the session ends.
#include "racepred/trace/validator.hpp"

namespace racepred {

struct Validator::State {
  EventConsumer& next;
  ValidationReport report;
};

Validator::Validator(const Symbols&, ValidationOptions, EventConsumer& next)
    : state_(new State{next, {}}) {}
Validator::~Validator() { delete state_; }
void Validator::on_event(EventId id, const Event& event, uint32_t line) {
  state_->next.on_event(id, event, line);
}
void Validator::on_end() { state_->next.on_end(); }
const ValidationReport& Validator::report() const { return state_->report; }

}  // namespace racepred
