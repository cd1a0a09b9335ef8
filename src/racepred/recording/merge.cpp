#include "racepred/recording/merge.hpp"

#include <string>

#include "racepred/trace/error.hpp"

namespace racepred::recording {

RecordMerger::RecordMerger(const RawRecording& recording, uint64_t cut)
    : heap_(Later{&cursors_}), cut_(cut) {
  holding_.file = recording.file;
  name_ = recording.name;
  cursors_.reserve(recording.threads.size());  // (cursors point at holding_, not at each other)
  for (const auto& [tid, t] : recording.threads)
    if (t.any) cursors_.emplace_back(t, tid, &holding_);
  for (size_t i = 0; i < cursors_.size(); ++i) heap_.push(i);
}

void RecordMerger::check() const {
  for (const ThreadCursor& c : cursors_)
    if (const RawBlock* b = c.malformed())
      throw InputError(name_ + ": byte " + std::to_string(b->offset) +
                       ": error: malformed raw block");
}

}  // namespace racepred::recording
